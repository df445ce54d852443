/**
 * The pii and secrets detectors: the shapes of core/redact.ts (the same redactor as svc_scrub),
 * one family each; `options.kinds` narrows a family to some of its kinds.
 */
import { invalidField } from "../../../core/errors.ts";
import { redactShapes, SHAPE_FAMILIES, shapeSpans } from "../../../core/redact.ts";
import type { DetectorType } from "./types.ts";

function family(name: keyof typeof SHAPE_FAMILIES): DetectorType {
  const all: readonly string[] = SHAPE_FAMILIES[name];
  return {
    describe: `${name} shapes: ${all.join(", ")}`,
    compile(options, field) {
      for (const k of Object.keys(options)) if (k !== "kinds") throw invalidField(`${field}.${k}`, `is not an option of ${name} (it takes kinds)`);
      let kinds = new Set(all);
      if (options.kinds !== undefined) {
        const list = options.kinds;
        if (!Array.isArray(list) || list.length === 0) throw invalidField(`${field}.kinds`, `must be a non-empty list of ${all.join(", ")}`);
        for (const k of list) if (typeof k !== "string" || !all.includes(k)) throw invalidField(`${field}.kinds`, `"${String(k)}" is not a ${name} kind (${all.join(", ")})`);
        kinds = new Set(list as string[]);
      }
      return {
        spans: (text) => shapeSpans(text, kinds),
        redact: (text) => {
          const r = redactShapes(text, kinds);
          return { text: r.text, count: r.count };
        },
      };
    },
  };
}

export const pii = family("pii");
export const secrets = family("secrets");

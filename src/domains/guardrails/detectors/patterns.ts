/** A detector over a list of regular expressions: spans of every match, and `[REDACTED:<kind>]` in their place. */
import type { Span } from "../../../core/redact.ts";
import type { Detector } from "./types.ts";

export function patternDetector(kind: string, patterns: readonly RegExp[]): Detector {
  const marker = `[REDACTED:${kind}]`;
  return {
    spans(text) {
      const out: Span[] = [];
      for (const p of patterns) for (const m of text.matchAll(p)) out.push({ start: m.index, end: m.index + m[0].length });
      return out;
    },
    redact(text) {
      let count = 0;
      let out = text;
      for (const p of patterns) {
        out = out.replace(p, () => {
          count++;
          return marker;
        });
      }
      return { text: out, count };
    },
  };
}

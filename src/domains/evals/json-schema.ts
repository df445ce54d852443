/**
 * The json_schema assert: the owner's JSON Schema (draft 2020-12), compiled by Ajv — a real
 * validator, not a subset — when the eval is created (an invalid schema is refused there) and
 * again for each run.
 *
 * Schemas come from accounts, so: a fresh Ajv per schema (a shared one would keep every
 * account's schemas forever, and their $ids could collide); an unknown keyword or format is a
 * mistake to report, not to ignore; no loader, so a $ref to anything outside the
 * schema fails to compile instead of being fetched; and a size and depth bound before Ajv sees it.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { SCHEMA_MAX_BYTES, SCHEMA_MAX_DEPTH } from "./limits.ts";

function depthOf(value: unknown, depth = 0): number {
  if (depth > SCHEMA_MAX_DEPTH || value === null || typeof value !== "object") return depth;
  let deepest = depth;
  for (const child of Object.values(value as Record<string, unknown>)) deepest = Math.max(deepest, depthOf(child, depth + 1));
  return deepest;
}

/** The validator of a schema, or why the schema cannot be used (a reason to put after the field name). */
export function compileSchema(schema: unknown): { validate: ValidateFunction } | { reason: string } {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return { reason: "must be a JSON Schema object" };
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > SCHEMA_MAX_BYTES) return { reason: `is ${bytes} bytes as JSON; at most ${SCHEMA_MAX_BYTES} (16 KiB)` };
  if (depthOf(schema) > SCHEMA_MAX_DEPTH) return { reason: `nests deeper than ${SCHEMA_MAX_DEPTH} levels` };
  try {
    // Unknown keywords and formats are refused; the pedantic checks (a required property left out
    // of properties, a type left implicit) are not, since they are valid JSON Schema.
    const ajv = new Ajv2020({ strictSchema: true, strictNumbers: true, strictTypes: false, strictTuples: false, strictRequired: false, allErrors: false, logger: false });
    addFormats(ajv);
    return { validate: ajv.compile(schema) };
  } catch (err) {
    return { reason: `is not a usable JSON Schema (draft 2020-12): ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * The JSON a model answered with: the whole reply, or the one fenced code block it wrapped it
 * in (models often do, even when asked not to). Undefined when neither parses.
 */
export function jsonOfReply(text: string): { value: unknown } | undefined {
  const candidates = [text.trim()];
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/i.exec(text.trim());
  if (fenced) candidates.push(fenced[1]!.trim());
  for (const candidate of candidates) {
    try {
      return { value: JSON.parse(candidate) as unknown };
    } catch {
      // try the next form
    }
  }
  return undefined;
}

/** The keyword that failed (e.g. "required", "type"): says why without echoing the output or the schema's names. */
export const failedKeyword = (errors: ErrorObject[] | null | undefined): string => errors?.[0]?.keyword ?? "schema";

/**
 * A launch's spec, locked at creation (spec §2.6): its canonical JSON (core/canonical-json.ts:
 * keys sorted, integers only, no whitespace) and the sha256 of those bytes, the digest. The
 * digest is public from the start; the spec itself and its canonical text are shown publicly
 * only from reveal_at on, when anyone can hash spec_canonical and compare. Nothing changes the
 * spec afterwards: PATCH takes only the custodian, decimals and interval.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { ApiError, invalidField } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";

/** The tools a spec may grant. "distribute" also needs passthrough: true to be used. */
export const TOOLS = ["distribute", "nav"] as const;
export type Tool = (typeof TOOLS)[number];

export const MAX_SPEC_BYTES = 16 * 1024;

export interface LockedSpec {
  canonical: string;
  digest: string;
}

export function lockSpec(spec: Record<string, unknown>): LockedSpec {
  let canonical: string;
  try {
    canonical = canonicalJson(spec);
  } catch (err) {
    throw invalidField("spec", `must be canonical-JSON-able: ${(err as Error).message} (write fractions as strings)`);
  }
  if (Buffer.byteLength(canonical) > MAX_SPEC_BYTES) throw invalidField("spec", `must be at most ${MAX_SPEC_BYTES} bytes as canonical JSON`);
  return { canonical, digest: sha256Hex(canonical) };
}

export interface SpecGrant {
  tools: Tool[];
  passthrough: boolean;
}

export function grantOf(canonical: string): SpecGrant {
  const spec = JSON.parse(canonical) as { tools?: Tool[]; passthrough?: boolean };
  return { tools: spec.tools ?? [], passthrough: spec.passthrough === true };
}

/** 403 tool_not_locked unless the locked spec grants `tool`. */
export function requireTool(canonical: string, tool: Tool): SpecGrant {
  const grant = grantOf(canonical);
  if (!grant.tools.includes(tool)) {
    throw new ApiError(403, "tool_not_locked", `the launch's locked spec does not grant the "${tool}" tool; a spec cannot change after creation`, { tool, granted: grant.tools });
  }
  return grant;
}

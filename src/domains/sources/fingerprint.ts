/**
 * A source set's fingerprint: sha256 (lowercase hex) of the canonical JSON (core/canonical-json.ts)
 * of its entries array, in the order given, each entry holding exactly the fields it was given
 * (kind, label, and url and/or sha256). The name and the `public` flag are not part of it: a
 * receipt that references the set attests what was cited, not what the set was called.
 * docs/sources.md "The fingerprint" shows how to recompute it.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { sha256Hex } from "../../core/secrets.ts";

export interface SourceEntry {
  kind: string;
  label: string;
  url?: string;
  sha256?: string;
}

export const FINGERPRINT_ALG = "sha256(canonical JSON of the entries array: keys sorted, no whitespace)";

/** The entry as fingerprinted and stored: only the fields present, never an undefined one. */
export function entryOf(e: SourceEntry): SourceEntry {
  return { kind: e.kind, label: e.label, ...(e.url !== undefined ? { url: e.url } : {}), ...(e.sha256 !== undefined ? { sha256: e.sha256 } : {}) };
}

export function fingerprintOf(entries: readonly SourceEntry[]): string {
  return sha256Hex(canonicalJson(entries.map(entryOf)));
}

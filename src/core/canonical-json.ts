/**
 * Canonical JSON (spec §2.4 commitment_alg): object keys sorted ascending by Unicode code
 * point, arrays in order, integers only, minimal string escaping, no whitespace. One
 * implementation for receipts, statements, passports and commitments, so the same payload
 * always yields the same bytes (and hashes and signatures over them).
 */
export type Canonical = null | boolean | number | string | Canonical[] | { [key: string]: Canonical };

/**
 * Code-point order; JS's default string sort compares UTF-16 code units, which differs above
 * U+FFFF. Compared at the first differing code unit: codePointAt there reads a whole surrogate
 * pair when one starts at that index, and a shared high surrogate before it leaves two low
 * surrogates, whose code-unit order is their code-point order. No per-key copies: this runs for
 * every key of every receipt on the money path.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isSafeInteger(value)) throw new TypeError(`canonical JSON holds integers only, got ${value}`);
      return String(value);
    case "string":
      // JSON.stringify escapes only what JSON requires: ", \\ and control characters.
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
      const record = value as Record<string, unknown>;
      let out = "";
      for (const key of Object.keys(record).sort(compareCodePoints)) {
        const v = record[key];
        if (v === undefined) continue;
        out += `${out ? "," : ""}${JSON.stringify(key)}:${canonicalJson(v)}`;
      }
      return `{${out}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

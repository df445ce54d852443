/**
 * Canonical JSON (spec §2.4 commitment_alg): object keys sorted ascending by Unicode code
 * point, arrays in order, integers only, minimal string escaping, no whitespace. One
 * implementation for receipts, statements, passports and commitments, so the same payload
 * always yields the same bytes (and hashes and signatures over them).
 */
export type Canonical = null | boolean | number | string | Canonical[] | { [key: string]: Canonical };

/** Code-point order; JS's default string sort compares UTF-16 code units, which differs above U+FFFF. */
function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
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
      const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
      entries.sort(([a], [b]) => compareCodePoints(a, b));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

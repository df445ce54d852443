/**
 * Reading a figure out of a source's answer, exactly: an RFC 6901 pointer into JSON, and decimal
 * text turned into integer units by floor (never through a float: 0.1 + 0.2 must not leak into a
 * NAV). A figure that is not a plain decimal is refused, so a source cannot smuggle "1e30".
 */

const DECIMAL = /^(\d{1,40})(?:\.(\d{1,40}))?$/;

/** The value at `pointer` ("" is the whole document), or undefined when any step is missing. */
export function atPointer(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  if (!pointer.startsWith("/")) return undefined;
  let node: unknown = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(key)) return undefined;
      node = node[Number(key)];
    } else if (node !== null && typeof node === "object" && Object.hasOwn(node, key)) {
      node = (node as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return node;
}

/** A JSON number or numeric string as canonical decimal text ("12.50" → "12.5"), or null when it is not a non-negative decimal. */
export function decimalText(value: unknown): string | null {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) return null;
    // JSON numbers beyond 2^53 have already lost digits; a source that means them exactly sends a string.
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return null;
    text = String(value);
    if (/e/i.test(text)) return null;
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    return null;
  }
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const int = m[1]!.replace(/^0+(?=\d)/, "");
  const frac = (m[2] ?? "").replace(/0+$/, "");
  return frac ? `${int}.${frac}` : int;
}

/** Decimal text scaled by 10^scale, rounded down: scaledUnits("1.2345678", 6) = 1234567n. */
export function scaledUnits(decimal: string, scale: number): bigint {
  const m = DECIMAL.exec(decimal);
  if (!m) throw new Error(`not a decimal: ${decimal}`);
  const frac = (m[2] ?? "").padEnd(scale, "0").slice(0, scale);
  return BigInt(m[1]!) * 10n ** BigInt(scale) + (scale ? BigInt(frac) : 0n);
}

/** Integer base units with `decimals` as decimal text: 1234500n, 6 → "1.2345". */
export function unitsAsDecimal(units: bigint, decimals: number): string {
  const base = 10n ** BigInt(decimals);
  const frac = (units % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return frac ? `${units / base}.${frac}` : `${units / base}`;
}

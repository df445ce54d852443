/**
 * Record ids: a type prefix plus 120 random bits in lowercase base32 (key_…, call_…, vid_…).
 * Random rather than sequential so ids leak neither volume nor order to other tenants.
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const ID_CHARS = 24;

export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(ID_CHARS));
  let out = prefix + "_";
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

const ID_PATTERN = /^[a-z][a-z0-9]*_[a-z2-7]{24}$/;

/** True when the value has the shape of an id with this prefix (a cheap pre-check before a lookup). */
export function isId(value: string, prefix: string): boolean {
  return value.startsWith(prefix + "_") && ID_PATTERN.test(value);
}

/**
 * Record ids: a type prefix plus 120 random bits in lowercase base32 (key_…, call_…, vid_…).
 * Random rather than sequential so ids leak neither volume nor order to other tenants; the rows
 * of the metered hot path use newOrderedId (below).
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const ID_CHARS = 24;

export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(ID_CHARS));
  let out = prefix + "_";
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

/** Characters of an ordered id given to the time: 10 × 5 bits = 50 bits of milliseconds (past the year 37,000). */
const TIME_CHARS = 10;

/**
 * An id of the same shape whose first characters are the creation time (ms), so ids made later
 * sort later: for the rows every metered call inserts (holds, ledger entries, usage events,
 * receipts, outbox events), whose unique index then grows at its right edge instead of dirtying
 * a random leaf page per insert (bench/meter.ts prints the WAL pages per call). The other 70
 * bits are random: the id still leaks no volume, only the time of a record its owner already
 * sees the time of.
 */
export function newOrderedId(prefix: string, now = Date.now()): string {
  let time = "";
  let t = Math.max(0, Math.floor(now));
  for (let i = 0; i < TIME_CHARS; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = crypto.getRandomValues(new Uint8Array(ID_CHARS - TIME_CHARS));
  let out = prefix + "_" + time;
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

const ID_PATTERN = /^[a-z][a-z0-9]*_[a-z2-7]{24}$/;

/** True when the value has the shape of an id with this prefix (a cheap pre-check before a lookup). */
export function isId(value: string, prefix: string): boolean {
  return value.startsWith(prefix + "_") && ID_PATTERN.test(value);
}

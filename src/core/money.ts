/**
 * Money is an integer count of micro-USD (millionths of a dollar) everywhere; no float ever
 * touches an amount. Number is exact up to 2^53 micro-USD (about 9 billion USD), which bounds
 * every balance this service can hold; arithmetic that could pass it goes through BigInt.
 */
export type MicroUsd = number;

export const MICRO_PER_USD = 1_000_000;

/**
 * The largest amount one *_micro_usd value may carry, in any request, config key or CLI flag:
 * 10^15 micro-USD, one billion dollars. Nine of them still add up exactly (below 2^53), so a
 * total over a few maximal amounts never rounds.
 */
export const MAX_MICRO_USD = 1_000_000_000_000_000;

export function isMicroUsd(value: unknown): value is MicroUsd {
  return typeof value === "number" && Number.isSafeInteger(value);
}

export function assertMicroUsd(value: unknown, field = "amount_micro_usd"): MicroUsd {
  if (!isMicroUsd(value)) throw new RangeError(`${field} must be an integer number of micro-USD`);
  return value;
}

export function addMicroUsd(a: MicroUsd, b: MicroUsd): MicroUsd {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new RangeError("micro-USD sum overflows");
  return sum;
}

/**
 * Parses a decimal dollar amount as an operator types it ("12", "0.5", "$1.234567") into
 * micro-USD, exactly. More than six decimals cannot be represented and is refused, not rounded.
 */
export function parseUsd(text: string): MicroUsd {
  const m = /^\s*\$?(-)?(\d+)(?:\.(\d{1,6}))?\s*$/.exec(text);
  if (!m) throw new RangeError(`"${text}" is not a dollar amount with at most six decimals`);
  const [, neg, whole, frac = ""] = m;
  const micro = BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, "0"));
  if (micro > BigInt(MAX_MICRO_USD)) throw new RangeError(`"${text}" is more than the largest amount, ${formatUsd(MAX_MICRO_USD)}`);
  return Number(neg ? -micro : micro);
}

/**
 * A micro-USD amount as an operator types it on the command line: a whole number from `min`
 * to MAX_MICRO_USD ("1e6", "1.5" and "-3" are refused, never read as something else).
 */
export function parseMicroUsd(text: string, min = 0): MicroUsd {
  if (!/^\d+$/.test(text.trim())) throw new RangeError(`"${text}" is not a whole number of micro-USD`);
  const value = BigInt(text.trim());
  if (value < BigInt(min) || value > BigInt(MAX_MICRO_USD)) throw new RangeError(`"${text}" must be between ${min} and ${MAX_MICRO_USD} micro-USD`);
  return Number(value);
}

/** "$1.50", "$0.000123": at least two decimals, trailing zeros beyond them dropped. */
export function formatUsd(micro: MicroUsd): string {
  const neg = micro < 0;
  const abs = BigInt(Math.abs(micro));
  const whole = abs / 1_000_000n;
  let frac = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  if (frac.length < 2) frac = frac.padEnd(2, "0");
  return `${neg ? "-" : ""}$${whole}.${frac}`;
}

/**
 * Cost of `units` at a price quoted per million units (tokens), rounded UP to the micro-USD:
 * the service never bills less than the price list says, and never bills 0 for non-zero use.
 */
export function costPerMillion(units: number, microUsdPerMillion: MicroUsd): MicroUsd {
  if (!Number.isSafeInteger(units) || units < 0) throw new RangeError("units must be a non-negative integer");
  const num = BigInt(units) * BigInt(microUsdPerMillion);
  const cost = (num + 999_999n) / 1_000_000n;
  return Number(cost);
}

/** Token base units (e.g. USDT's 6 decimals) to micro-USD, for a token pegged 1:1 to USD. Dust below a micro-USD is dropped. */
export function tokenUnitsToMicroUsd(units: bigint, decimals: number): MicroUsd {
  const micro = decimals >= 6 ? units / 10n ** BigInt(decimals - 6) : units * 10n ** BigInt(6 - decimals);
  const value = Number(micro);
  if (!Number.isSafeInteger(value)) throw new RangeError("token amount is too large");
  return value;
}

/** Micro-USD to token base units, rounded up so that paying the quoted amount always covers it. */
export function microUsdToTokenUnits(micro: MicroUsd, decimals: number): bigint {
  const m = BigInt(micro);
  if (decimals >= 6) return m * 10n ** BigInt(decimals - 6);
  const div = 10n ** BigInt(6 - decimals);
  return (m + div - 1n) / div;
}

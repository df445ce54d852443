/**
 * What sandboxes cost: integer micro-USD per second of wall time, from svc.toml
 * (sandboxes.price_micro_usd_per_second, a language's own price where one is set), billed per
 * millisecond and rounded up, so a 15 ms run at 100 µ$/s costs 2 µ$, never 0 for work done.
 * The worst case of a run (what is reserved) is its price over its whole timeout; what is
 * settled is its measured time, at most the timeout (the runner's kill latency is not billed).
 */
import { MAX_MICRO_USD } from "../../core/money.ts";
import type { SandboxesConfig } from "./config.ts";
import type { LanguageName } from "./runner/index.ts";

/** The per-second price of a run (of `language`, or of a command: the base price). */
export function runPrice(config: SandboxesConfig, language: LanguageName | null | undefined): number {
  return (language ? config.language_price_micro_usd_per_second[language] : undefined) ?? config.price_micro_usd_per_second;
}

/** ⌈ms × price / 1000⌉ in exact integers, capped at the largest amount. */
export function costOfMs(pricePerSecond: number, ms: number): number {
  if (ms <= 0 || pricePerSecond <= 0) return 0;
  const cost = (BigInt(Math.ceil(ms)) * BigInt(pricePerSecond) + 999n) / 1000n;
  return cost > BigInt(MAX_MICRO_USD) ? MAX_MICRO_USD : Number(cost);
}

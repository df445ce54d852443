/**
 * speed_factor: how fast a node does the same fixed, CPU-bound work as the gateway. Both ends
 * run referenceBenchMs() (the same code: they are the same binary); the node sends its time in
 * each heartbeat, the gateway divides its own by it. 1 = as fast as the gateway, 2 = twice as
 * fast. A claim outside [MIN, MAX] is clamped and counted (clamp_count): a node can say what it
 * likes about itself, and the registry shows how often what it said had to be corrected.
 */
import { createHash } from "node:crypto";

export const MIN_SPEED_FACTOR = 0.1;
export const MAX_SPEED_FACTOR = 10;

const BLOCK = new Uint8Array(256 * 1024).fill(7);

/** Best of three: 32 rounds of sha256 over 256 KiB chained (8 MiB hashed), in milliseconds. */
export function referenceBenchMs(): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    let digest: Uint8Array = new Uint8Array(32);
    for (let i = 0; i < 32; i++) digest = createHash("sha256").update(digest).update(BLOCK).digest();
    best = Math.min(best, performance.now() - t0);
  }
  return Math.max(best, 0.001);
}

/** The node's factor from its reported time, rounded to two decimals, and whether it was clamped. */
export function speedFactorOf(gatewayMs: number, nodeMs: number): { factor: number; clamped: boolean } {
  const raw = gatewayMs / nodeMs;
  const factor = Math.min(MAX_SPEED_FACTOR, Math.max(MIN_SPEED_FACTOR, raw));
  return { factor: Math.round(factor * 100) / 100, clamped: factor !== raw };
}

/**
 * Per-client token buckets for public routes. A bucket holds `burst` requests and refills at
 * `perMinute`; an empty bucket answers 429 with the whole seconds until the next token. State
 * is in memory: one `svc serve` per database means one process, and a restart forgiving
 * everyone is acceptable for a rate limit (it is not a quota).
 */
import type { Clock } from "./clock.ts";

export interface RateLimitRule {
  /** Sustained requests per minute per client; 0 disables the limit. */
  perMinute: number;
  /** Requests a client may make at once before the sustained rate applies. */
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export type Take = { ok: true; remaining: number } | { ok: false; retryAfterSecs: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly rule: RateLimitRule,
    private readonly maxClients = 50_000,
  ) {}

  take(client: string): Take {
    if (this.rule.perMinute <= 0) return { ok: true, remaining: Infinity };
    const now = this.clock.now();
    const perMs = this.rule.perMinute / 60_000;
    const capacity = Math.max(1, this.rule.burst);
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= this.maxClients) this.prune(now, perMs, capacity);
      bucket = { tokens: capacity, at: now };
      this.buckets.set(client, bucket);
    } else {
      bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true, remaining: Math.floor(bucket.tokens) };
    }
    return { ok: false, retryAfterSecs: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }

  /** Forgets clients whose bucket has refilled: they are indistinguishable from new ones. */
  private prune(now: number, perMs: number, capacity: number): void {
    for (const [client, b] of this.buckets) {
      if (b.tokens + (now - b.at) * perMs >= capacity) this.buckets.delete(client);
    }
    if (this.buckets.size >= this.maxClients) this.buckets.clear();
  }
}

/**
 * The client address a limit applies to. Behind a reverse proxy every request comes from the
 * proxy, so X-Forwarded-For is honoured only when the operator says a proxy is in front
 * (trust_proxy); otherwise a client could pick its own bucket by sending the header.
 */
export function clientAddress(request: Request, socketAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    if (forwarded) return forwarded.split(",")[0]!.trim();
    const real = request.headers.get("x-real-ip");
    if (real) return real.trim();
  }
  return socketAddress ?? "unknown";
}

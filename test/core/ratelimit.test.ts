import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock.ts";
import { clientAddress, RateLimiter } from "../../src/core/ratelimit.ts";

describe("per-client rate limit", () => {
  test("allows a burst, then refuses with the seconds until the next token, then refills", () => {
    const clock = new ManualClock();
    const rl = new RateLimiter(clock, { perMinute: 60, burst: 3 });
    expect([rl.take("a").ok, rl.take("a").ok, rl.take("a").ok]).toEqual([true, true, true]);
    const refused = rl.take("a");
    expect(refused).toEqual({ ok: false, retryAfterSecs: 1 });
    expect(rl.take("b").ok).toBe(true); // other clients are unaffected
    clock.advance(999);
    expect(rl.take("a").ok).toBe(false);
    clock.advance(1);
    expect(rl.take("a").ok).toBe(true);
  });

  test("retry-after is whole seconds, at least one", () => {
    const clock = new ManualClock();
    const rl = new RateLimiter(clock, { perMinute: 2, burst: 1 });
    rl.take("a");
    expect(rl.take("a")).toEqual({ ok: false, retryAfterSecs: 30 });
    clock.advance(29_500);
    expect(rl.take("a")).toEqual({ ok: false, retryAfterSecs: 1 });
  });

  test("perMinute 0 disables the limit", () => {
    const rl = new RateLimiter(new ManualClock(), { perMinute: 0, burst: 1 });
    for (let i = 0; i < 100; i++) expect(rl.take("a").ok).toBe(true);
  });

  test("memory stays bounded under many clients", () => {
    const clock = new ManualClock();
    const rl = new RateLimiter(clock, { perMinute: 60, burst: 2 }, 100);
    for (let i = 0; i < 1000; i++) rl.take(`c${i}`);
    expect((rl as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(100);
  });

  test("X-Forwarded-For counts only behind a trusted proxy", () => {
    const req = new Request("http://svc.test/", { headers: { "x-forwarded-for": "203.0.113.9, 10.0.0.1" } });
    expect(clientAddress(req, "10.0.0.1", false)).toBe("10.0.0.1");
    expect(clientAddress(req, "10.0.0.1", true)).toBe("203.0.113.9");
    expect(clientAddress(new Request("http://svc.test/"), undefined, true)).toBe("unknown");
  });
});

/**
 * POST /v1/assistant: 404 when not configured; keyless answers on the configured model (here an
 * Anthropic-kind one, so through the translation); per-IP limit (429); a global daily budget
 * persisted per UTC day (503 with Retry-After until midnight UTC, worst cases in flight
 * counted); nothing of the conversation stored anywhere, no usage event, no receipt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { UpstreamStub } from "../../support/upstream.ts";
import { makeHarness } from "../../support/harness.ts";
import { type Gateway, type ModelOver, type ProviderOver, startGateway } from "./inference-support.ts";

function assistantCatalog(stub: UpstreamStub): { providers: ProviderOver[]; models: ModelOver[] } {
  return {
    providers: [
      { name: "an", kind: "anthropic", base_url: stub.anthropicBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY" },
      { name: "an-slow", kind: "anthropic", base_url: stub.anthropicBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", headers: { "x-stub-behaviour": "slow", "x-stub-delay-ms": "100" } },
    ],
    models: [
      { id: "helper", provider: "an", upstream: "stub-claude" },
      { id: "helper-slow", provider: "an-slow", upstream: "stub-claude" },
    ],
  };
}

const ask = (g: Gateway, content: string, extra: object = {}) =>
  fetch(`${g.url}/v1/assistant`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [{ role: "user", content }], ...extra }) });

const count = (g: Gateway, table: string) => g.h.ctx.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;

test("not configured: the route does not exist (404)", async () => {
  const h = makeHarness();
  try {
    expect((await h.json("POST", "/v1/assistant", { body: { messages: [{ role: "user", content: "hi" }] } })).status).toBe(404);
    const paths = (await h.json("GET", "/openapi.json")).body.paths;
    expect(paths["/v1/assistant"]).toBeUndefined();
  } finally {
    h.close();
  }
});

describe("configured", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway({
      catalog: assistantCatalog,
      harness: {
        config: (c) => {
          // The slow provider keeps calls in flight long enough to overlap (the budget test).
          c.assistant = { model: "helper-slow", daily_budget_micro_usd: 10_000, per_ip_per_minute: 5, max_output_tokens: 1000 };
        },
      },
    });
  });
  afterAll(() => g.stop());

  test("answers keylessly; stores nothing of the conversation; no usage event, receipt or event; only the day's spend", async () => {
    const before = { usage: count(g, "usage_events"), receipts: count(g, "receipts"), events: count(g, "outbox_events") };
    const secret = `conversation-marker-${crypto.randomUUID()}`;
    const res = await ask(g, `Hello assistant ${secret}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toEqual({ object: "assistant.reply", model: "helper-slow", message: { role: "assistant", content: `reply to: Hello assistant ${secret}` }, finish_reason: "stop" });
    expect([...res.headers.keys()].filter((k) => k.startsWith("x-svc-receipt"))).toEqual([]);
    expect(g.stub.last("/v1/messages")!.body.max_tokens).toBe(1000);
    expect({ usage: count(g, "usage_events"), receipts: count(g, "receipts"), events: count(g, "outbox_events") }).toEqual(before);
    const day = g.h.ctx.db.query<{ day: string; spent_micro_usd: number; requests: number }, []>("SELECT * FROM assistant_spend").get()!;
    expect(day.day).toBe("2026-11-21");
    expect(day.spent_micro_usd).toBeGreaterThan(0);
    expect(day.requests).toBe(1);
    g.h.ctx.db.run("PRAGMA wal_checkpoint(PASSIVE)");
    for (const file of readdirSync(g.h.dir).filter((f) => f.startsWith("svc.db"))) expect(readFileSync(join(g.h.dir, file)).includes(secret)).toBe(false);
  });

  test("the reply is what its OpenAPI entry declares (through the harness's served-vs-declared check)", async () => {
    const r = await g.h.json("POST", "/v1/assistant", { body: { messages: [{ role: "user", content: "shape check" }] } });
    expect(r.status).toBe(200);
    expect(r.body.object).toBe("assistant.reply");
  });

  test("bad input is a 400 naming the field", async () => {
    const res = await fetch(`${g.url}/v1/assistant`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [{ role: "system", content: "x" }] }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.param).toStartWith("messages");
  });

  test("the budget: spent plus worst cases in flight; 503 assistant_budget_exhausted with Retry-After until midnight UTC; a new day starts over", async () => {
    // Each call may cost ~2,000 (1,000 output tokens at $2/Mtok): leave room for exactly one in flight.
    g.h.ctx.db.query("UPDATE assistant_spend SET spent_micro_usd = ? WHERE day = '2026-11-21'").run(10_000 - 3_000);
    const [a, b] = await Promise.all([ask(g, "first"), Bun.sleep(20).then(() => ask(g, "second"))]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 503]);
    const refused = (a.status === 503 ? a : b)!;
    expect(refused.headers.get("retry-after")).toBe(String(12 * 3600)); // the harness clock is 12:00 UTC
    expect(((await refused.json()) as any).error).toMatchObject({ type: "assistant_budget_exhausted", retry_after_secs: 43_200 });
    g.h.clock.advance(86_400_000);
    expect((await ask(g, "a new day")).status).toBe(200);
    expect(g.h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM assistant_spend").get()!.n).toBe(2);
  });

  test("the per-IP limit: 429 with Retry-After once a client's bucket is empty", async () => {
    g.h.clock.advance(60_000 * 10); // refill
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await ask(g, `n ${i}`)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const res = await ask(g, "again");
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

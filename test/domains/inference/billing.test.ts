/**
 * Metering of inference through real HTTP: the exact cost from the upstream's usage (cached
 * tokens included), streamed cost equal to non-streamed cost for the same output on every
 * route and direction, a client that disconnects mid-stream billed for what was produced (and
 * the upstream call cancelled), failed upstream calls billed nothing, 429s with the upstream's
 * retry hint, fallback to the next provider (on the receipt), no overspend under concurrency,
 * the key's scopes, caps, breaker and allowed models, and x402 terms on 402 insufficient_credit.
 *
 * The stub's behaviours are pinned per provider with svc.toml `headers` (x-stub-*), so each
 * model below is an upstream that behaves one way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MoneyLease } from "../../../src/core/money-lease.ts";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import OpenAI from "openai";
import { delegateKey, mintKey } from "../../../src/domains/keys/service.ts";
import type { UpstreamStub } from "../../support/upstream.ts";
import { balance, costAt, eventually, type Gateway, PRICES, receiptFromHeaders, startGateway, UPSTREAM_KEY, usageEvents } from "./inference-support.ts";

const CACHED_PRICE = 250_000;

function billingCatalog(stub: UpstreamStub) {
  const oa = (name: string, headers: Record<string, string> = {}, extra: object = {}) => ({ name, kind: "openai" as const, base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", headers, ...extra });
  const slow = { "x-stub-behaviour": "slow", "x-stub-delay-ms": "0", "x-stub-chunk-delay-ms": "30", "x-stub-output-tokens": "300" };
  return {
    providers: [
      oa("oa", {}, { supports_responses: true }),
      oa("oa-chat"),
      { name: "an", kind: "anthropic" as const, base_url: stub.anthropicBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY" },
      oa("oa-slow", slow),
      { name: "an-slow", kind: "anthropic" as const, base_url: stub.anthropicBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", headers: slow },
      oa("oa-failing", { "x-stub-behaviour": "fail" }),
      oa("oa-limited", { "x-stub-behaviour": "rate_limit", "x-stub-retry-after": "7" }),
      oa("oa-reject", { "x-stub-behaviour": "reject", "x-stub-reject-message": "bad parameter" }),
      oa("oa-hang", { "x-stub-behaviour": "hang" }, { timeout_secs: 0.3 }),
      oa("oa-cached", { "x-stub-cached-tokens": "4" }),
      oa("oa-inflight", { "x-stub-behaviour": "slow", "x-stub-delay-ms": "150" }),
    ],
    models: [
      { id: "gpt-test", provider: "oa", upstream: "stub-gpt" },
      { id: "gpt-chat-only", provider: "oa-chat", upstream: "stub-gpt" },
      { id: "claude-test", provider: "an", upstream: "stub-claude" },
      { id: "gpt-slow", provider: "oa-slow", upstream: "stub-gpt" },
      { id: "claude-slow", provider: "an-slow", upstream: "stub-claude", max_output: 1000 },
      { id: "gpt-fail", provider: "oa-failing", upstream: "stub-gpt" },
      { id: "gpt-429", provider: "oa-limited", upstream: "stub-gpt" },
      { id: "gpt-fallback", provider: "oa-failing", upstream: "stub-gpt", fallback_providers: ["oa-limited", "oa"] },
      { id: "gpt-reject-fallback", provider: "oa-reject", upstream: "stub-gpt", fallback_providers: ["oa"] },
      { id: "gpt-timeout-fallback", provider: "oa-hang", upstream: "stub-gpt", fallback_providers: ["an"] },
      { id: "gpt-cached", provider: "oa-cached", upstream: "stub-gpt", cached_input_micro_usd_per_mtok: CACHED_PRICE },
      { id: "gpt-inflight", provider: "oa-inflight", upstream: "stub-gpt" },
    ],
  };
}

let g: Gateway;
beforeAll(async () => {
  g = await startGateway({ catalog: billingCatalog });
});
afterAll(() => g.stop());

const ask = (content: string) => [{ role: "user" as const, content }];
const lastUsage = () => usageEvents(g).at(-1)!;
const held = () => balance(g).held_micro_usd;

describe("what a call costs", () => {
  test("exact cost from the upstream's usage; the ledger moves by exactly that; nothing stays held", async () => {
    const before = balance(g).balance_micro_usd;
    const res = await g.openai.chat.completions.create({ model: "gpt-test", messages: ask("Exact billing please") });
    const u = res.usage!;
    const ev = lastUsage();
    expect(ev.cost_micro_usd).toBe(costAt(u.prompt_tokens, u.completion_tokens));
    expect(ev.units).toMatchObject({ input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens, cached_input_tokens: 0 });
    expect(ev.reserved_micro_usd).toBeGreaterThanOrEqual(ev.cost_micro_usd);
    expect(balance(g).balance_micro_usd).toBe(before - ev.cost_micro_usd);
    expect(held()).toBe(0);
  });

  test("cache reads are billed at the cached price", async () => {
    const res = await g.openai.chat.completions.create({ model: "gpt-cached", messages: ask("Cached prompt here") });
    const u = res.usage!;
    expect(u.prompt_tokens_details!.cached_tokens).toBe(4);
    expect(lastUsage().cost_micro_usd).toBe(Math.ceil(((u.prompt_tokens - 4) * PRICES.input + 4 * CACHED_PRICE + u.completion_tokens * PRICES.output) / 1_000_000));
    expect(lastUsage().units.cached_input_tokens).toBe(4);
  });

  test("streamed cost equals non-streamed cost for the same output, on every route and in both translation directions", async () => {
    const cases: { path: string; body: Record<string, unknown> }[] = [
      { path: "/v1/chat/completions", body: { model: "gpt-test", messages: ask("same output either way") } },
      { path: "/v1/chat/completions", body: { model: "claude-test", messages: ask("same output either way"), max_tokens: 100 } },
      { path: "/v1/messages", body: { model: "claude-test", max_tokens: 100, messages: ask("same output either way") } },
      { path: "/v1/messages", body: { model: "gpt-test", max_tokens: 100, messages: ask("same output either way") } },
      { path: "/v1/responses", body: { model: "gpt-test", input: "same output either way" } },
      { path: "/v1/responses", body: { model: "gpt-chat-only", input: "same output either way" } },
      { path: "/v1/responses", body: { model: "claude-test", input: "same output either way" } },
    ];
    for (const c of cases) {
      const plain = await g.post(c.path, c.body);
      expect(plain.status).toBe(200);
      await plain.text();
      const plainCost = lastUsage();
      const streamed = await g.post(c.path, { ...c.body, stream: true });
      expect(streamed.status).toBe(200);
      await streamed.text();
      const streamedCost = lastUsage();
      expect(streamedCost.id).not.toBe(plainCost.id);
      expect({ path: c.path, model: c.body.model, cost: streamedCost.cost_micro_usd, units: { ...streamedCost.units, stream: false } }).toEqual({
        path: c.path,
        model: c.body.model,
        cost: plainCost.cost_micro_usd,
        units: plainCost.units,
      });
      expect(streamedCost.cost_micro_usd).toBeGreaterThan(0);
    }
    expect(held()).toBe(0);
  });
});

describe("a client that disconnects mid-stream", () => {
  test("OpenAI upstream: the upstream call is cancelled and the produced part is billed (never 0)", async () => {
    const before = usageEvents(g).length;
    const stream = await g.openai.chat.completions.create({ model: "gpt-slow", messages: ask("write at length"), stream: true });
    let deltas = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) deltas++;
      if (deltas === 5) break; // the SDK aborts the request
    }
    await eventually(() => usageEvents(g).length === before + 1);
    const ev = lastUsage();
    expect(ev.status).toBe("client_disconnected");
    expect(ev.units.output_tokens).toBeGreaterThanOrEqual(5);
    expect(ev.units.output_tokens).toBeLessThan(300);
    expect(ev.units.input_tokens).toBeGreaterThan(0);
    expect(ev.cost_micro_usd).toBe(costAt(ev.units.input_tokens, ev.units.output_tokens));
    await eventually(() => g.stub.last("/v1/chat/completions")!.aborted);
    expect(g.stub.last("/v1/chat/completions")!.completed).toBe(false);
    expect(held()).toBe(0);
    const receipt = g.h.ctx.db.query<{ status: string }, [string]>("SELECT status FROM receipts WHERE usage_event_id = ?").get(ev.id);
    expect(receipt!.status).toBe("client_disconnected");
  });

  test("Anthropic upstream through the Chat translation: the input the upstream reported, the output produced", async () => {
    const before = usageEvents(g).length;
    const res = await g.post("/v1/chat/completions", { model: "claude-slow", messages: ask("write at length"), stream: true });
    const reader = res.body!.getReader();
    let seen = "";
    while ((seen.match(/"content":"[^"]/g) ?? []).length < 6) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    await eventually(() => usageEvents(g).length === before + 1);
    const ev = lastUsage();
    expect(ev.status).toBe("client_disconnected");
    expect(ev.units.input_tokens).toBe(3 + encode("write at length").length); // the stub's own count (3 per message), from message_start
    expect(ev.units.output_tokens).toBeGreaterThanOrEqual(5);
    expect(ev.units.output_tokens).toBeLessThan(300);
    expect(ev.cost_micro_usd).toBe(costAt(ev.units.input_tokens, ev.units.output_tokens));
    await eventually(() => g.stub.last("/v1/messages")!.aborted);
    expect(held()).toBe(0);
  });
});

/** billingCatalog and gpt-hang: an upstream that never answers, within a timeout (the default, minutes) no test waits for. */
function hangingCatalog(stub: UpstreamStub) {
  const base = billingCatalog(stub);
  const hang = { name: "oa-hang-long", kind: "openai" as const, base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", headers: { "x-stub-behaviour": "hang" } };
  return { providers: [...base.providers, hang], models: [...base.models, { id: "gpt-hang", provider: "oa-hang-long", upstream: "stub-gpt" }] };
}

describe("the upstream call starts inside its reservation's transaction (a durable reservation)", () => {
  test("when that transaction's COMMIT fails, the call it started is aborted, the client gets an error, nothing is held or billed", async () => {
    const own = await startGateway({ catalog: hangingCatalog });
    // Another process spends from the database too (it holds the money lease shared): reservations
    // cannot stay in memory, so this call's is a durable hold, written in a transaction.
    const other = new MoneyLease(`${own.h.ctx.paths.db}.money-lease`);
    other.requireSpend();
    try {
      const { ctx } = own.h;
      // A deferred foreign-key violation passes every statement and fails only at COMMIT.
      ctx.db.run("CREATE TABLE commit_probe (account_id TEXT REFERENCES accounts (id))");
      const grouped = ctx.tx.grouped.bind(ctx.tx);
      ctx.tx.grouped = ((fn: () => unknown) => {
        ctx.tx.grouped = grouped;
        return grouped(() => {
          const value = fn();
          ctx.db.run("PRAGMA defer_foreign_keys = ON");
          ctx.db.run("INSERT INTO commit_probe (account_id) VALUES ('acct_missing')");
          return value;
        });
      }) as typeof ctx.tx.grouped;
      // The upstream calls svc makes, seen at fetch: whether each was cancelled.
      const upstreamCalls: AbortSignal[] = [];
      const realFetch = globalThis.fetch;
      globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
        if (String(input).startsWith(own.stub.openaiBaseUrl)) upstreamCalls.push(init!.signal!);
        return realFetch(input, init);
      }) as typeof fetch;
      const before = balance(own);
      let res: Response;
      try {
        res = await own.post("/v1/chat/completions", { model: "gpt-hang", messages: ask("hello") });
      } finally {
        globalThis.fetch = realFetch;
      }
      expect(res.status).toBe(500);
      // The call had started (the reservation's checks passed) and is cancelled, not left to hang.
      expect(upstreamCalls).toHaveLength(1);
      expect(upstreamCalls[0]!.aborted).toBe(true);
      await eventually(() => own.stub.requests.every((r) => r.aborted));
      expect(balance(own)).toEqual(before);
      expect(usageEvents(own)).toHaveLength(0);
      expect(ctx.db.query("SELECT count(*) AS n FROM holds").get()).toEqual({ n: 0 });
      expect(ctx.ledger.lease.mode).toBe("shared");
    } finally {
      other.release();
      await own.stop();
    }
  });
});

describe("a client that hangs up on a non-streamed call", () => {
  test("the upstream call is cancelled, nothing is billed, and it is not logged as an error of ours", async () => {
    const lines: { level: string; msg: string }[] = [];
    const keep = (level: string) => (msg: string) => void lines.push({ level, msg });
    const own = await startGateway({ catalog: hangingCatalog, harness: { log: { debug: keep("debug"), info: keep("info"), warn: keep("warn"), error: keep("error") } } });
    try {
      const gone = new AbortController();
      const call = fetch(`${own.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${own.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-hang", messages: ask("hello") }),
        signal: gone.signal,
      }).catch((err: unknown) => err);
      await eventually(() => own.stub.last("/v1/chat/completions") !== undefined);
      gone.abort();
      expect(await call).toBeInstanceOf(Error);
      await eventually(() => own.stub.last("/v1/chat/completions")!.aborted);
      await eventually(() => balance(own).held_micro_usd === 0);
      expect(usageEvents(own)).toHaveLength(0);
      expect(lines.filter((l) => l.level === "error")).toEqual([]);
    } finally {
      await own.stop();
    }
  });
});

describe("upstream failures", () => {
  test("an upstream 500 is a 502 naming the provider, bills nothing and releases the hold (plain and streaming)", async () => {
    const before = { events: usageEvents(g).length, balance: balance(g).balance_micro_usd };
    const err = await g.openai.chat.completions.create({ model: "gpt-fail", messages: ask("x") }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(502);
    expect(err.error).toMatchObject({ type: "upstream_error", provider: "oa-failing", upstream_status: 500 });
    expect(JSON.stringify(err.error)).not.toContain(UPSTREAM_KEY);
    expect(JSON.stringify(err.error)).not.toContain("127.0.0.1");
    const streamed = await g.post("/v1/chat/completions", { model: "gpt-fail", messages: ask("x"), stream: true });
    expect(streamed.status).toBe(502);
    expect(usageEvents(g).length).toBe(before.events);
    expect(balance(g).balance_micro_usd).toBe(before.balance);
    expect(held()).toBe(0);
  });

  test("an upstream 429 is a 429 with the upstream's retry hint (Retry-After and retry_after_secs)", async () => {
    const err = await g.openai.chat.completions.create({ model: "gpt-429", messages: ask("x") }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.headers.get("retry-after")).toBe("7");
    expect(err.error).toMatchObject({ type: "upstream_rate_limited", retry_after_secs: 7, provider: "oa-limited" });
    expect(held()).toBe(0);
  });

  test("fallback: retryable failures move on to the next provider; the receipt names the provider used and those skipped", async () => {
    g.stub.clear();
    const { data, response } = await g.openai.chat.completions.create({ model: "gpt-fallback", messages: ask("fall back please") }).withResponse();
    expect(data.choices[0]!.message.content).toBe("reply to: fall back please");
    expect(g.stub.requests.map((r) => r.behaviour)).toEqual(["fail", "rate_limit", "ok"]);
    const payload = await receiptFromHeaders(g, response.headers);
    expect(payload.attestations.routing).toEqual({ provider: "oa", privacy_tier: "standard", fallback_from: ["oa-failing", "oa-limited"] });

    // streaming falls back the same way (nothing had reached the client yet)
    const stream = await g.openai.chat.completions.create({ model: "gpt-fallback", messages: ask("stream fall back"), stream: true });
    let text = "";
    for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
    expect(text).toBe("reply to: stream fall back");
    expect(lastUsage().units.attestations.routing.fallback_from).toEqual(["oa-failing", "oa-limited"]);
  });

  test("a timeout falls back too (here to another provider kind); a request the upstream rejects is not retried elsewhere", async () => {
    const res = await g.openai.chat.completions.create({ model: "gpt-timeout-fallback", messages: ask("too slow") }, { timeout: 5000 });
    expect(res.choices[0]!.message.content).toBe("reply to: too slow");
    expect(lastUsage().units.attestations.routing).toMatchObject({ provider: "an", fallback_from: ["oa-hang"] });

    g.stub.clear();
    const err = await g.openai.chat.completions.create({ model: "gpt-reject-fallback", messages: ask("x") }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error).toMatchObject({ type: "upstream_rejected", provider: "oa-reject" });
    expect(err.message).toContain("bad parameter");
    expect(g.stub.requests).toHaveLength(1);
    expect(held()).toBe(0);
  });
});

describe("concurrency", () => {
  test("many parallel calls against a small balance never overspend; holds return to 0", async () => {
    const small = await startGateway({ catalog: billingCatalog, credit: 20_000 });
    try {
      // Each call reserves about 2,000 micro-USD (1,000 output tokens at $2/Mtok) and stays in flight 150 ms.
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => small.post("/v1/chat/completions", { model: "gpt-inflight", max_tokens: 1000, messages: ask(`parallel ${i}`) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 402);
      expect(ok.length + refused.length).toBe(40);
      expect(ok.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect(r.body.error.type).toBe("insufficient_credit");
      const settled = usageEvents(small).reduce((sum, e) => sum + e.cost_micro_usd, 0);
      expect(usageEvents(small)).toHaveLength(ok.length);
      const after = balance(small);
      expect(settled).toBeLessThanOrEqual(20_000);
      expect(after.balance_micro_usd).toBe(20_000 - settled);
      expect(after.held_micro_usd).toBe(0);
      expect(after.balance_micro_usd).toBeGreaterThanOrEqual(0);
    } finally {
      await small.stop();
    }
  });
});

describe("the key's controls apply", () => {
  test("a key without the inference scope: 403 missing_scope", async () => {
    const key = mintKey(g.h.ctx, { accountId: g.accountId, scopes: ["state"] }).key;
    const err = await g.clientsFor(key).openai.chat.completions.create({ model: "gpt-test", messages: ask("x") }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err.error).toMatchObject({ type: "missing_scope", scope: "inference" });
    const anthropicErr = await g.clientsFor(key).anthropic.messages.create({ model: "claude-test", max_tokens: 5, messages: ask("x") }).catch((e) => e);
    expect(anthropicErr.status).toBe(403);
  });

  test("the monthly cap: 402 spend_cap_reached (no x402 terms), nothing sent upstream", async () => {
    const key = mintKey(g.h.ctx, { accountId: g.accountId, monthlyCap: 1000 }).key;
    const before = g.stub.requests.length;
    const res = await fetch(`${g.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-test", messages: ask("x") }) });
    expect(res.status).toBe(402);
    const body = (await res.json()) as any;
    expect(body.error.type).toBe("spend_cap_reached");
    expect(body.accepts).toBeUndefined();
    expect(g.stub.requests.length).toBe(before);
  });

  test("the circuit breaker: a reservation above the key's per-minute limit trips it (402 circuit_breaker_tripped), and it stays frozen", async () => {
    const key = mintKey(g.h.ctx, { accountId: g.accountId, breakerPerMinute: 1500 }).key;
    const { openai } = g.clientsFor(key);
    for (let i = 0; i < 2; i++) {
      const err = await openai.chat.completions.create({ model: "gpt-test", messages: ask("x"), max_tokens: 1000 }).catch((e) => e);
      expect(err.status).toBe(402);
      expect(err.error.type).toBe("circuit_breaker_tripped");
    }
    const small = await openai.chat.completions.create({ model: "gpt-test", messages: ask("x"), max_tokens: 5 }).catch((e) => e);
    expect(small.error.type).toBe("circuit_breaker_tripped"); // frozen until unfrozen
  });

  test("a delegated key's allowed models: another model is 403 resource_not_allowed", async () => {
    const parent = mintKey(g.h.ctx, { accountId: g.accountId }).view.id;
    const child = delegateKey(g.h.ctx, parent, { allowedModels: ["gpt-test"] }).key;
    const { openai } = g.clientsFor(child);
    expect((await openai.chat.completions.create({ model: "gpt-test", messages: ask("x") })).choices).toHaveLength(1);
    const err = await openai.chat.completions.create({ model: "claude-test", messages: ask("x") }).catch((e) => e);
    expect(err.status).toBe(403);
    expect(err.error.type).toBe("resource_not_allowed");
  });
});

describe("insufficient credit", () => {
  test("402 insufficient_credit carries x402 terms (v1 body, v2 PAYMENT-REQUIRED header) on the inference routes", async () => {
    const broke = await startGateway({
      catalog: billingCatalog,
      credit: 0,
      harness: {
        config: (c) => {
          c.billing.treasury = "0x2b5ad5c4795c026514f8317c7a215e218dccd6cf";
          c.chains = [{ name: "devnet", chain_id: 31337, rpc_url: "http://127.0.0.1:9", usdt: "0x5fbdb2315678afecb367f032d93f642f64180aa3", decimals: 6, confirmations: 1 }];
        },
      },
    });
    try {
      for (const [path, body] of [
        ["/v1/chat/completions", { model: "gpt-test", messages: ask("x") }],
        ["/v1/messages", { model: "claude-test", max_tokens: 10, messages: ask("x") }],
        ["/v1/embeddings", { model: "gpt-test", input: "x" }],
      ] as const) {
        const res = await broke.post(path, body);
        const json = (await res.json()) as any;
        if (path === "/v1/embeddings") {
          expect(res.status).toBe(400); // a chat model on the embeddings route is refused before credit is looked at
          continue;
        }
        expect(res.status).toBe(402);
        expect(json.error.type).toBe("insufficient_credit");
        expect(json.x402Version).toBe(1);
        expect(json.accepts[0]).toMatchObject({ scheme: "exact", network: "devnet", resource: path });
        expect(Number(json.accepts[0].maxAmountRequired)).toBeGreaterThan(0);
        const v2 = JSON.parse(Buffer.from(res.headers.get("payment-required")!, "base64").toString());
        expect(v2.x402Version).toBe(2);
      }
      expect(broke.stub.requests).toHaveLength(0);
    } finally {
      await broke.stop();
    }
  });
});

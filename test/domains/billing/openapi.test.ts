/**
 * The billing routes' OpenAPI entries say what they serve: every operation has its success
 * schema, and the statuses its services answer beyond the baseline (deposit verification's
 * 404/409/501/502/503, subscribe's 402, cancel's 409). The harness checks each response below
 * against the document, so a 402 with x402 terms beside `error` is proven to fit it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

type Op = { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> };

const TREASURY = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf";

describe("billing in the OpenAPI document", () => {
  test("every operation declares its success schema and its own error statuses", async () => {
    h = makeHarness();
    // Read straight from the app: the document's own route belongs to another area.
    const doc = (await (await h.app.handle(new Request("http://svc.test/openapi.json"))).json()) as { paths: Record<string, Record<string, Op>> };
    const expected: [string, string, string[]][] = [
      ["get", "/v1/billing/balance", ["200"]],
      ["get", "/v1/billing/ledger", ["200", "400"]],
      ["get", "/v1/billing/methods", ["200", "429"]],
      ["post", "/v1/billing/deposits", ["200", "201", "400", "403", "404", "409", "501", "502", "503"]],
      ["get", "/v1/billing/deposits", ["200"]],
      ["post", "/v1/billing/deposits/refresh", ["200"]],
      ["get", "/v1/billing/alerts", ["200"]],
      ["put", "/v1/billing/alerts", ["200", "400"]],
      ["get", "/v1/billing/plans", ["200", "429"]],
      ["get", "/v1/billing/subscription", ["200"]],
      ["post", "/v1/billing/subscription", ["200", "400", "402"]],
      ["post", "/v1/billing/subscription/cancel", ["200", "409"]],
    ];
    for (const [method, path, statuses] of expected) {
      const op = doc.paths[path]?.[method];
      expect({ path, method, found: Boolean(op) }).toEqual({ path, method, found: true });
      expect({ path, method, statuses: statuses.filter((s) => !op!.responses[s]) }).toEqual({ path, method, statuses: [] });
      const ok = op!.responses[statuses.find((s) => s.startsWith("2"))!]!.content?.["application/json"]?.schema;
      expect({ path, method, schema: Boolean(ok) }).toEqual({ path, method, schema: true });
    }
    const bare = doc.paths["/v1/billing/deposits"]!.get!.responses["200"]!.content!["application/json"]!.schema!;
    expect(bare.type).toBe("array");
    const ledger = doc.paths["/v1/billing/ledger"]!.get!.responses["200"]!.content!["application/json"]!.schema!;
    expect(ledger.required).toEqual(expect.arrayContaining(["entries", "next_cursor", "has_more"]));
  });
});

describe("served as declared", () => {
  test("subscribe's 402 carries x402 terms beside error, and fits the declared Error schema", async () => {
    h = makeHarness({
      config: (c) => {
        c.plans.push({ id: "pro", name: "Pro", monthly_fee_micro_usd: 4_000_000, retention_days: 30, limits: {}, features: [] });
        c.billing.treasury = TREASURY;
        c.chains = [{ name: "devnet", chain_id: 31337, rpc_url: "http://127.0.0.1:9", usdt: "0x5FbDB2315678afecb367f032d93F642f64180aa3", decimals: 6, confirmations: 1 }];
      },
    });
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 1_000_000, { type: "deposit" });
    const r = await h.json("POST", "/v1/billing/subscription", { headers: bearer(session.token), body: { plan: "pro" } });
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ type: "insufficient_credit", required_micro_usd: 4_000_000, spendable_micro_usd: 1_000_000 });
    expect(r.body.x402Version).toBe(1);
    expect(r.body.accepts).toEqual([expect.objectContaining({ network: "devnet", maxAmountRequired: "3000000" })]);
    expect((await h.json("GET", "/v1/billing/subscription", { headers: bearer(session.token) })).body).toMatchObject({ subscribed: false, plan_id: "free" });
  });

  test("a plan id longer than any svc.toml allows is refused by the schema, naming plan", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const r = await h.json("POST", "/v1/billing/subscription", { headers: bearer(session.token), body: { plan: "p".repeat(33) } });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("plan");
  });

  test("an empty account's views: balance, ledger, deposits, alerts, methods, plans, subscription", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const auth = bearer(session.token);
    expect((await h.json("GET", "/v1/billing/balance", { headers: auth })).body).toEqual({ balance_micro_usd: 0, held_micro_usd: 0, spendable_micro_usd: 0 });
    expect((await h.json("GET", "/v1/billing/ledger", { headers: auth })).body).toEqual({ entries: [], next_cursor: null, has_more: false });
    expect((await h.json("GET", "/v1/billing/deposits", { headers: auth })).body).toEqual([]);
    expect((await h.json("POST", "/v1/billing/deposits/refresh", { headers: auth })).body).toEqual({ checked: 0, credited: 0, deposits: [] });
    expect((await h.json("GET", "/v1/billing/methods")).body).toEqual({ deposits_enabled: false, treasury: null, chains: [] });
    expect((await h.json("GET", "/v1/billing/alerts", { headers: auth })).status).toBe(200);
    expect((await h.json("GET", "/v1/billing/plans")).body.default_plan_id).toBe("free");
    const cancel = await h.json("POST", "/v1/billing/subscription/cancel", { headers: auth });
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.type).toBe("no_subscription");
  });
});

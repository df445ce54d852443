/**
 * The autopilot tests' gateway: the inference test gateway with three chat models at falling
 * prices on stand-in upstreams of their own (so `[[say@stub-big …]]` in an eval case answers for
 * one model only), tenants with a session, a key and credit, and helpers that make real usage
 * (chat calls through the official openai client) and real eval runs (through /v1/evals).
 */
import { expect } from "bun:test";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { defaultCatalog, type Gateway, type GatewayOptions, startGateway } from "../inference/inference-support.ts";

export const USD = 1_000_000;

/** micro-USD per million tokens: big is the priciest, small the cheapest. */
export const PRICE = {
  big: { input: 4_000_000, output: 8_000_000 },
  mid: { input: 2_000_000, output: 4_000_000 },
  small: { input: 1_000_000, output: 2_000_000 },
};

export async function startAutopilotGateway(options: GatewayOptions = {}): Promise<Gateway> {
  return startGateway({
    catalog: (stub) => ({
      providers: defaultCatalog(stub).providers,
      models: (["big", "mid", "small"] as const).map((n) => ({
        id: `${n}-model`,
        provider: "oa",
        upstream: `stub-${n}`,
        input_micro_usd_per_mtok: PRICE[n].input,
        output_micro_usd_per_mtok: PRICE[n].output,
      })),
    }),
    ...options,
  });
}

export interface Tenant {
  accountId: string;
  auth: Record<string, string>;
  keyId: string;
  key: string;
}

/** Another account with a session, an uncapped key and credit. */
export function tenant(g: Gateway, credit = 20 * USD): Tenant {
  const { account, session } = accountWithSession(g.h.ctx);
  if (credit > 0) g.h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  const key = apiKeyFor(g.h.ctx, account.id);
  return { accountId: account.id, auth: bearer(session.token), keyId: key.id, key: key.token };
}

/** `n` chat completions on `model` with the tenant's key (real usage: metered, receipted). */
export async function chat(g: Gateway, who: Tenant, model: string, n = 1): Promise<void> {
  const { openai } = g.clientsFor(who.key);
  for (let i = 0; i < n; i++) {
    const r = await openai.chat.completions.create({ model, messages: [{ role: "user", content: `please summarise item ${i} of the weekly report` }] });
    expect(r.choices[0]?.message.content).toBeTruthy();
  }
}

/** Creates an eval (through the route) and runs it on each model; answers its id and the runs. */
export async function evalRuns(g: Gateway, who: Tenant, cases: Record<string, unknown>[], models: string[]): Promise<{ evalId: string; runs: Record<string, any> }> {
  const made = await g.h.json("POST", "/v1/evals", { headers: who.auth, body: { name: "quality", model: models[0], cases } });
  expect(made.status).toBe(201);
  const runs: Record<string, any> = {};
  for (const model of models) runs[model] = await runOn(g, who, made.body.id, model);
  return { evalId: made.body.id, runs };
}

export async function runOn(g: Gateway, who: Tenant, evalId: string, model: string): Promise<any> {
  const r = await g.h.json("POST", `/v1/evals/${evalId}/run`, { headers: who.auth, body: { model } });
  expect(r.status).toBe(201);
  return r.body;
}

/** Usage events of an account, oldest first. */
export function usageOf(g: Gateway, accountId: string): any[] {
  return g.h.ctx.db
    .query<any, [string]>("SELECT * FROM usage_events WHERE account_id = ? ORDER BY seq")
    .all(accountId)
    .map((r) => ({ ...r, units: JSON.parse(r.units) }));
}

export const analyze = (g: Gateway, who: { auth: Record<string, string> }, body: Record<string, unknown> = {}) =>
  g.h.json("POST", "/v1/autopilot/analyze", { headers: who.auth, body });

export const kindOf = (proposals: any[], kind: string) => proposals.filter((p) => p.kind === kind);

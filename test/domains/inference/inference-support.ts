/**
 * A gateway for the inference tests: a harness context with providers and models pointing at
 * the local upstream stub, served over real HTTP on 127.0.0.1 (startServer, port 0), an account
 * with credit and an API key, and the OFFICIAL openai and @anthropic-ai/sdk clients pointed at
 * it. Receipts are checked with viem against the deployment's published signer.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type Hex, recoverMessageAddress } from "viem";
import { CHECK_INTERVAL_MS, saveCatalog } from "../../../src/domains/inference/catalog.ts";
import { type ModelConfig, parseInferenceSection, type ProviderConfig } from "../../../src/domains/inference/config.ts";
import { startServer } from "../../../src/server.ts";
import { onCleanup } from "../../support/cleanup.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { type Harness, type HarnessOptions, makeHarness } from "../../support/harness.ts";
import { startUpstream, type UpstreamStub } from "../../support/upstream.ts";

export const USD = 1_000_000;
export const UPSTREAM_KEY = "sk-upstream-secret-0a1b2c3d4e5f6a7b";
process.env.SVC_TEST_UPSTREAM_KEY = UPSTREAM_KEY;

/** Prices: $1 / $2 per million input/output tokens; embeddings $0.10. Round numbers so costs are easy to check. */
export const PRICES = { input: 1_000_000, output: 2_000_000, embed: 100_000 };

export type ProviderOver = Partial<ProviderConfig> & { name: string; kind: ProviderConfig["kind"] };
export type ModelOver = Partial<ModelConfig> & { id: string; provider: string };

export interface GatewayOptions {
  /** Providers and models on the stub (default: defaultCatalog). */
  catalog?: (stub: UpstreamStub) => { providers: ProviderOver[]; models: ModelOver[] };
  /** Credit on the test account, micro-USD (default 100 USD). */
  credit?: number;
  keyScopes?: string[];
  harness?: HarnessOptions;
}

export interface Gateway {
  h: Harness;
  stub: UpstreamStub;
  /** http://127.0.0.1:PORT */
  url: string;
  accountId: string;
  sessionToken: string;
  key: string;
  keyId: string;
  openai: OpenAI;
  anthropic: Anthropic;
  clientsFor(key: string): { openai: OpenAI; anthropic: Anthropic };
  /** POST with the test key, raw fetch. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/** One openai-kind and one anthropic-kind provider on the stub, and models on each. */
export function defaultCatalog(stub: UpstreamStub): { providers: ProviderOver[]; models: ModelOver[] } {
  return {
    providers: [
      { name: "oa", kind: "openai", base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", regions: ["us"], supports_responses: true },
      { name: "oa-chat", kind: "openai", base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", regions: ["eu"] },
      { name: "an", kind: "anthropic", base_url: stub.anthropicBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", regions: ["us"] },
    ],
    models: [
      { id: "gpt-test", provider: "oa", upstream: "stub-gpt" },
      { id: "gpt-chat-only", provider: "oa-chat", upstream: "stub-gpt" },
      { id: "claude-test", provider: "an", upstream: "stub-claude" },
      { id: "embed-test", provider: "oa", upstream: "stub-embed", type: "embedding", input_micro_usd_per_mtok: PRICES.embed, output_micro_usd_per_mtok: undefined },
      // The stub's behaviours, pinned by the upstream name (test/support/upstream.ts)
      { id: "gpt-cut", provider: "oa", upstream: "stub-gpt@cut" },
      { id: "claude-cut", provider: "an", upstream: "stub-claude@cut" },
    ],
  };
}

/** The default catalogue plus `extra` models on its providers (a suite's own stand-in models). */
export const withModels = (extra: ModelOver[]) => (stub: UpstreamStub) => {
  const base = defaultCatalog(stub);
  return { providers: base.providers, models: [...base.models, ...extra] };
};

/**
 * Points a model id at another upstream name, as an operator editing svc.toml would, and moves
 * the clock past the catalogue's check so it reloads: the same model id answering differently
 * (drift, regressions).
 */
export function repointModel(h: Harness, modelId: string, upstream: string): void {
  const section = {
    providers: h.ctx.config.providers.map((p) => ({ ...p })),
    models: [...h.ctx.catalog.current().models.values()].map(({ created: _created, ...m }) => (m.id === modelId ? { ...m, upstream } : { ...m })),
  };
  saveCatalog(h.ctx.config.config_path, section);
  h.clock.advance(CHECK_INTERVAL_MS);
  if (h.ctx.catalog.current().model(modelId)?.upstream !== upstream) throw new Error(`the catalogue did not pick up ${modelId} → ${upstream}`);
}

const withModelDefaults = (m: ModelOver) => ({ upstream: m.id, input_micro_usd_per_mtok: PRICES.input, output_micro_usd_per_mtok: PRICES.output, max_output: 1000, ...m });
const withProviderDefaults = (p: ProviderOver) => ({ base_url: "http://127.0.0.1:9/v1", timeout_secs: 10, ...p });

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const stub = startUpstream({ apiKey: UPSTREAM_KEY });
  const catalog = (options.catalog ?? defaultCatalog)(stub);
  const h = makeHarness({
    ...options.harness,
    config: (c) => {
      c.listen = "127.0.0.1:0";
      Object.assign(c, parseInferenceSection({ providers: catalog.providers.map(withProviderDefaults), models: catalog.models.map(withModelDefaults) }));
      options.harness?.config?.(c);
    },
  });
  const server = await startServer(h.ctx, { app: h.app });
  const { account, session } = accountWithSession(h.ctx);
  if ((options.credit ?? 100 * USD) > 0) h.ctx.ledger.credit(account.id, options.credit ?? 100 * USD, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id, { scopes: options.keyScopes });
  const clientsFor = (token: string) => ({
    openai: new OpenAI({ apiKey: token, baseURL: `${server.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: token, baseURL: server.url, maxRetries: 0 }),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    stub.stop();
  };
  onCleanup(() => void stop());
  return {
    h,
    stub,
    url: server.url,
    accountId: account.id,
    sessionToken: session.token,
    key: key.token,
    keyId: key.id,
    ...clientsFor(key.token),
    clientsFor,
    post: (path, body, headers = {}) =>
      fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key.token}`, "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
    stop,
  };
}

/** Recovers a receipt's signer with viem and checks it is the deployment's signer; returns the decoded payload. */
export async function verifyReceipt(g: Gateway, receipt: string | null | undefined, signature: string | null | undefined): Promise<any> {
  if (!receipt || !signature) throw new Error("no receipt");
  const recovered = await recoverMessageAddress({ message: receipt, signature: signature as Hex });
  const pub = (await (await fetch(`${g.url}/v1/receipts/pubkey`)).json()) as { address: string };
  if (recovered.toLowerCase() !== pub.address.toLowerCase()) throw new Error(`receipt signed by ${recovered}, not the deployment's ${pub.address}`);
  return JSON.parse(Buffer.from(receipt, "base64url").toString("utf8"));
}

/** The receipt headers of a non-streamed response, verified; returns the payload. */
export async function receiptFromHeaders(g: Gateway, headers: Headers): Promise<any> {
  return verifyReceipt(g, headers.get("x-svc-receipt"), headers.get("x-svc-receipt-signature"));
}

/** Parses a raw SSE body into records: {event, data} for events, {comment} for comment lines. */
export function sseEvents(raw: string): { event: string | null; data: string; comment: string | null }[] {
  return raw
    .split(/\n\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      let event: string | null = null;
      let comment: string | null = null;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
        else if (line.startsWith(": ")) comment = line.slice(2);
      }
      return { event, data: data.join("\n"), comment };
    });
}

/** The stream's receipt (the `: svc.receipt {…}` comment), parsed; null when there is none. */
export function receiptEventOf(raw: string): any {
  const found = sseEvents(raw).find((e) => e.comment?.startsWith("svc.receipt "));
  return found ? JSON.parse(found.comment!.slice("svc.receipt ".length)) : null;
}

/** Usage events of the account, newest last. */
export function usageEvents(g: Gateway): any[] {
  return g.h.ctx.db
    .query<any, [string]>("SELECT * FROM usage_events WHERE account_id = ? ORDER BY seq")
    .all(g.accountId)
    .map((r) => ({ ...r, units: JSON.parse(r.units) }));
}

/** The account's balance: total and open holds. */
export function balance(g: Gateway) {
  return g.h.ctx.ledger.balance(g.accountId);
}

/** Waits (briefly, polling) until `check` holds: for effects that land after a response (a disconnect's settlement). */
export async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}

/** Cost in micro-USD at PRICES for a token count pair, rounded up once (pricing.ts). */
export const costAt = (input: number, output: number, prices = PRICES) => Math.ceil((input * prices.input + output * prices.output) / 1_000_000);

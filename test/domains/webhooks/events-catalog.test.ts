/**
 * Spec §6, enumerated. Every event type the spec lists is in the table below with the feature
 * that emits it and whether that feature ships in this build. For each shipped type the test
 * triggers it through the feature's real code path and requires an outbox row of that type AND
 * its delivery to a subscribed webhook (a real receiver checking the signature). For each type
 * whose feature has not shipped, it checks the feature's route is still absent: the day a later
 * issue mounts that route, this file fails until its event is wired and `ships` is flipped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseInferenceSection } from "../../../src/domains/inference/config.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { EVENT_FAMILIES, EVENT_TYPES } from "../../../src/domains/webhooks/catalog.ts";
import { registerWebhookJobs } from "../../../src/domains/webhooks/delivery.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { type Receiver, startReceiver } from "../../support/receiver.ts";
import { inertFleet } from "../../support/sandbox-harness.ts";
import { startUpstream, type UpstreamStub } from "../../support/upstream.ts";
import { repointModel, UPSTREAM_KEY } from "../inference/inference-support.ts";

const USD = 1_000_000;
const TREASURY = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf";

interface Tenant {
  h: Harness;
  accountId: string;
  auth: Record<string, string>;
}

interface CatalogueRow {
  type: string;
  /** The feature (spec area) that emits it. */
  feature: string;
  ships: boolean;
  /** Shipped: makes the feature emit the event, through its own routes or services. */
  trigger?: (t: Tenant) => Promise<void>;
  /** Not shipped: a route of the feature ("METHOD /path" as in the OpenAPI document); mounted means shipped. */
  route?: string;
}

let chain: Devnet;
let stub: UpstreamStub;
let usdt: Address;
let payer: Address;

const post = (t: Tenant, path: string, body: unknown = {}) => t.h.json("POST", path, { headers: t.auth, body });

/** A one-line chat batch through the routes, run by the batch runner until it ends. */
async function runBatch(t: Tenant, model: string): Promise<void> {
  t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
  const auth = bearer(apiKeyFor(t.h.ctx, t.accountId).token);
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new File([JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model, messages: [{ role: "user", content: "hi" }] } })], "in.jsonl"));
  const file = await t.h.json("POST", "/v1/files", { headers: auth, raw: form });
  const batch = await t.h.json("POST", "/v1/batches", { headers: auth, body: { input_file_id: file.body.id, endpoint: "/v1/chat/completions", completion_window: "24h" } });
  t.h.ctx.batchRunner.start();
  try {
    for (let i = 0; i < 400; i++) {
      const now = await t.h.json("GET", `/v1/batches/${batch.body.id}`, { headers: auth });
      if (["completed", "failed"].includes(now.body.status)) return;
      await Bun.sleep(10);
    }
    throw new Error("the batch did not end");
  } finally {
    await t.h.ctx.batchRunner.stop(1000);
  }
}

/**
 * An eval whose one case passes on m-stub as it is, a monitor on it, then m-stub pointed at
 * another upstream (as an operator editing svc.toml would): the monitor's next run fails the
 * case, a drop of 1.0.
 */
async function evalDrift(t: Tenant): Promise<void> {
  t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
  registerJobs(t.h.ctx);
  const evaluation = await post(t, "/v1/evals", { name: "drift", model: "m-stub", cases: [{ input: "[[say@stub-gpt yes]]", expected: "yes", assert: "exact" }] });
  expect((await post(t, `/v1/evals/${evaluation.body.id}/run`)).status).toBe(201);
  expect((await post(t, "/v1/evals/monitors", { eval_id: evaluation.body.id, interval_s: 3600, drop_threshold: 0.5 })).status).toBe(201);
  repointModel(t.h, "m-stub", "stub-other");
  t.h.clock.advance(3_600_000);
  await t.h.ctx.scheduler.runDue();
}

/** Spec §6, row by row. */
/** A vault asset with two holders, then one move of the kind asked: a transfer, a distribution, or an attester's signed statement. */
async function vaultMove(t: Tenant, kind: "transfer" | "distribution" | "attestation"): Promise<void> {
  const made = async (path: string, body: unknown) => {
    const r = await post(t, path, body);
    expect({ path, status: r.status }).toEqual({ path, status: 201 });
    return r.body;
  };
  const asset = await made("/v1/vault/assets", { name: "Catalogue Fund", total_micro_usd: 100 * USD });
  const ada = await made(`/v1/vault/assets/${asset.id}/holders`, { name: "Ada", amount_micro_usd: 10 * USD });
  const bob = await made(`/v1/vault/assets/${asset.id}/holders`, { name: "Bob" });
  if (kind === "transfer") await made("/v1/vault/transfers", { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: USD });
  if (kind === "distribution") await made("/v1/vault/distributions", { asset_id: asset.id, amount_micro_usd: 5 * USD });
  if (kind === "attestation") {
    const auditor = privateKeyToAccount(generatePrivateKey());
    const attester = await made(`/v1/vault/assets/${asset.id}/attesters`, { name: "Kline", roles: ["auditor"], wallet: auditor.address });
    const signature = await auditor.signMessage({ message: `svc vault attestation\nasset: ${asset.id}\n\nok` });
    await made(`/v1/vault/assets/${asset.id}/attestations`, { attester_id: attester.id, statement: "ok", signature });
  }
}

/** A paid service call: the buyer pays the seller's wallet on the devnet, then invokes with the proof. */
async function serviceCall(t: Tenant): Promise<void> {
  const payee = chain.accounts[4]!;
  addWallet(t.h.ctx, t.accountId, payee);
  const backend = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
  try {
    const made = await post(t, "/v1/services", { slug: "catalog-echo", name: "Echo", description: "echo", price_micro_usd: USD, payee, upstream_url: `http://127.0.0.1:${backend.port}/` });
    expect(made.status).toBe(201);
    const hash = await chain.transfer(usdt, payer, payee, 1_000_000n);
    const proof = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: "devnet", payload: { tx_hash: hash } })).toString("base64");
    expect((await t.h.json("POST", "/v1/services/catalog-echo/invoke", { headers: { "x-payment": proof }, body: {} })).status).toBe(200);
  } finally {
    backend.stop(true);
  }
}

/** An attestation whose custodian goes down between the check and its refresh: VERIFIED → UNAVAILABLE. */
async function attestationChange(t: Tenant): Promise<void> {
  t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
  const key = bearer(apiKeyFor(t.h.ctx, t.accountId, { scopes: ["records"] }).token);
  let down = false;
  const custodian = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (down ? new Response("down", { status: 503 }) : Response.json({ usd: "1000000000" })) });
  try {
    const body = {
      asset_id: "catalog-asset",
      subject_ref: "TestUSDT",
      claim: { kind: "reserves_cover_supply", tolerance_bps: 0, max_age_secs: 3600 },
      sources: [
        { kind: "custodian", url: `http://127.0.0.1:${custodian.port}/reserves`, pointer: "/usd" },
        { kind: "erc20_supply", chain: "devnet", token: usdt },
      ],
    };
    const checked = await t.h.json("POST", "/v1/attestations/check", { headers: key, body });
    expect(checked.body.payload?.status ?? checked.body.status).toBe("VERIFIED");
    down = true;
    expect((await t.h.json("POST", "/v1/attestations/catalog-asset/refresh", { headers: key })).status).toBeLessThan(300);
  } finally {
    custodian.stop(true);
  }
}

const SPEC_6: CatalogueRow[] = [
  { type: "key_created", feature: "API keys", ships: true, trigger: async (t) => void (await post(t, "/v1/keys")) },
  {
    type: "key_revoked",
    feature: "API keys",
    ships: true,
    trigger: async (t) => {
      const key = await post(t, "/v1/keys");
      await t.h.json("DELETE", `/v1/keys/${key.body.id}`, { headers: t.auth });
    },
  },
  { type: "webhook_created", feature: "webhooks", ships: true, trigger: async (t) => void (await post(t, "/v1/webhooks", { url: "http://127.0.0.1:9/other", events: ["*"] })) },
  {
    type: "webhook_revoked",
    feature: "webhooks",
    ships: true,
    trigger: async (t) => {
      const other = await post(t, "/v1/webhooks", { url: "http://127.0.0.1:9/other", events: ["*"] });
      await t.h.json("DELETE", `/v1/webhooks/${other.body.id}`, { headers: t.auth });
    },
  },
  {
    type: "deposit_credited",
    feature: "USDT deposits",
    ships: true,
    trigger: async (t) => {
      addWallet(t.h.ctx, t.accountId, payer);
      const hash = await chain.transfer(usdt, payer, TREASURY, 5n * 1_000_000n);
      const r = await post(t, "/v1/billing/deposits", { chain: "devnet", tx_hash: hash });
      expect(r.body.status).toBe("credited");
    },
  },
  {
    type: "balance_low",
    feature: "billing alerts (meter settle)",
    ships: true,
    trigger: async (t) => {
      t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
      const r = t.h.ctx.meter.reserve({ accountId: t.accountId, keyId: null, amount: 6 * USD, kind: "inference" });
      t.h.ctx.meter.settle(r, 6 * USD); // 10 → 4, below the 5 USD default
    },
  },
  {
    type: "spend_cap_reached",
    feature: "meter (key caps)",
    ships: true,
    trigger: async (t) => {
      t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
      const key = apiKeyFor(t.h.ctx, t.accountId, { monthlyCap: USD });
      expect(() => t.h.ctx.meter.reserve({ accountId: t.accountId, keyId: key.id, amount: 2 * USD, kind: "inference" })).toThrow("spend cap");
    },
  },
  {
    type: "sandbox_failed",
    feature: "sandboxes",
    ships: true,
    trigger: async (t) => {
      t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
      inertFleet(t.h.ctx); // a node whose sandboxes do not start: the run fails, unbilled
      const key = apiKeyFor(t.h.ctx, t.accountId, { scopes: ["sandboxes"] });
      const r = await t.h.json("POST", "/v1/sandboxes", { headers: bearer(key.token), body: { language: "python", code: "print(1)" } });
      expect([r.status, r.body.error.type]).toEqual([503, "sandbox_failed"]);
    },
  },
  {
    type: "sandbox_session_stopped",
    feature: "sandbox sessions",
    ships: true,
    trigger: async (t) => {
      t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
      inertFleet(t.h.ctx);
      const auth = bearer(apiKeyFor(t.h.ctx, t.accountId, { scopes: ["sandboxes"] }).token);
      const s = await t.h.json("POST", "/v1/sandboxes/sessions", { headers: auth, body: {} });
      expect((await t.h.json("DELETE", `/v1/sandboxes/sessions/${s.body.id}`, { headers: auth })).body.stop_reason).toBe("requested");
    },
  },
  {
    type: "attestation_failed",
    feature: "inference (confidential tier)",
    ships: true,
    trigger: async (t) => {
      t.h.ctx.ledger.credit(t.accountId, 10 * USD, { type: "deposit" });
      const key = await post(t, "/v1/keys", { privacy_tier: "confidential" });
      // No configured provider attests, so the call is refused before anything is sent upstream.
      const r = await t.h.json("POST", "/v1/chat/completions", { headers: bearer(key.body.key), body: { model: "m-standard", messages: [{ role: "user", content: "x" }] } });
      expect(r.status).toBe(403);
    },
  },
  {
    type: "receipt_minted",
    feature: "receipts (meter settle)",
    ships: true,
    trigger: async (t) => {
      t.h.ctx.ledger.credit(t.accountId, 100 * USD, { type: "deposit" });
      const key = apiKeyFor(t.h.ctx, t.accountId);
      t.h.ctx.meter.settle(t.h.ctx.meter.reserve({ accountId: t.accountId, keyId: key.id, amount: 1000, kind: "inference", resource: "m" }), 700);
    },
  },
  { type: "vault_transfer_sent", feature: "vault", ships: true, trigger: (t) => vaultMove(t, "transfer") },
  { type: "vault_transfer_received", feature: "vault", ships: true, trigger: (t) => vaultMove(t, "transfer") },
  { type: "vault_distribution", feature: "vault", ships: true, trigger: (t) => vaultMove(t, "distribution") },
  { type: "vault_attestation", feature: "vault", ships: true, trigger: (t) => vaultMove(t, "attestation") },
  { type: "service_called", feature: "services marketplace", ships: true, trigger: serviceCall },
  { type: "batch_completed", feature: "batches", ships: true, trigger: (t) => runBatch(t, "m-stub") },
  // Every line names a model the catalogue does not have: no line succeeds, the batch fails (error_class model_not_found).
  { type: "batch_failed", feature: "batches", ships: true, trigger: (t) => runBatch(t, "m-missing") },
  {
    type: "webhook_test",
    feature: "webhooks",
    ships: true,
    trigger: async (t) => {
      const [subscriber] = (await t.h.json("GET", "/v1/webhooks", { headers: t.auth })).body;
      expect((await post(t, `/v1/webhooks/${subscriber.id}/test`)).status).toBe(202);
    },
  },
  { type: "eval_drift_detected", feature: "eval drift monitors", ships: true, trigger: evalDrift },
  { type: "attestation.*", feature: "attestation records", ships: true, trigger: attestationChange },
];

beforeAll(async () => {
  stub = startUpstream({ apiKey: UPSTREAM_KEY });
  chain = await startDevnet();
  payer = chain.accounts[1]!;
  usdt = await chain.deployToken();
  await chain.mint(usdt, payer, 1_000n * 1_000_000n);
});
afterAll(() => chain?.stop());

describe("spec §6: the event catalogue", () => {
  test("the types a webhook may subscribe to are exactly §6's", () => {
    expect([...EVENT_TYPES, ...EVENT_FAMILIES].map(String).sort()).toEqual(SPEC_6.map((r) => r.type).sort());
  });

  for (const row of SPEC_6.filter((r) => r.ships)) {
    test(`${row.type}: ${row.feature} emits it, and a subscribed webhook receives it`, async () => {
      const h = makeHarness({
        config: (c) => {
          c.webhooks.allow_private = true;
          c.sandboxes.local = false; // sandbox runs go to the test's fleet (inertFleet): no runner in this file
          c.billing.treasury = TREASURY;
          // A provider that never attests: only the confidential-tier refusal is exercised, nothing is sent to it.
          // And the upstream stub, for batches.
          Object.assign(c, parseInferenceSection({
            providers: [
              { name: "plain", kind: "openai", base_url: "http://127.0.0.1:9/v1", timeout_secs: 1 },
              { name: "stub", kind: "openai", base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", timeout_secs: 5 },
            ],
            models: [
              { id: "m-standard", provider: "plain", upstream: "m", input_micro_usd_per_mtok: 1, output_micro_usd_per_mtok: 1, max_output: 10 },
              { id: "m-stub", provider: "stub", upstream: "stub-gpt", input_micro_usd_per_mtok: 1, output_micro_usd_per_mtok: 1, max_output: 10 },
            ],
          }));
          c.chains = [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt, decimals: 6, confirmations: 1 }];
        },
      });
      const rx: Receiver = await startReceiver();
      try {
        registerWebhookJobs(h.ctx);
        const { account, session } = accountWithSession(h.ctx);
        const t: Tenant = { h, accountId: account.id, auth: bearer(session.token) };
        const sub = await post(t, "/v1/webhooks", { url: rx.url("/all"), events: ["*"] });
        expect(sub.status).toBe(201);
        rx.setSecret("/all", sub.body.secret);
        const mark = h.ctx.outbox.since(0).at(-1)!.seq; // the subscriber's own webhook_created is not its to receive

        await row.trigger!(t);
        // A family row (attestation.*) is met by any of its members.
        const isRow = (type: string) => (row.type.endsWith(".*") ? type.startsWith(row.type.slice(0, -1)) : type === row.type);
        const emitted = h.ctx.outbox.since(mark).filter((e) => isRow(e.type) && e.account_id === account.id);
        expect(emitted.length).toBeGreaterThan(0);

        await h.ctx.scheduler.runDue();
        const got = rx.received.filter((r) => isRow(r.json?.type ?? ""));
        expect(got.map((r) => r.json.id).sort()).toEqual(emitted.map((e) => e.id).sort());
        for (const r of got) {
          expect(r.signatureValid).toBe(true);
          expect(isRow(r.headers["x-svc-event"]!)).toBe(true);
          expect(r.json.data).toEqual(emitted.find((e) => e.id === r.json.id)!.payload);
        }
      } finally {
        h.close();
        await rx.close();
      }
    });
  }

  test("the features of the other types have not shipped yet (when one does, wire its event and set ships: true)", async () => {
    const h = makeHarness();
    try {
      const paths = (await h.json("GET", "/openapi.json")).body.paths as Record<string, Record<string, unknown>>;
      const mounted = (route: string) => {
        const [method, path] = route.split(" ") as [string, string];
        return Boolean(paths[path]?.[method.toLowerCase()]);
      };
      const shippedButSilent = SPEC_6.filter((r) => !r.ships && mounted(r.route!)).map((r) => `${r.type} (${r.feature}: ${r.route} is mounted)`);
      expect(shippedButSilent).toEqual([]);
      // The check can see a mounted route at all:
      expect(mounted("POST /v1/webhooks")).toBe(true);
    } finally {
      h.close();
    }
  });
});

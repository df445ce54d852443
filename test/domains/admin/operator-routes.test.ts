/**
 * The operator routes beside the accounts ones, through HTTP with the admin token:
 * GET /v1/admin/nodes and POST /v1/admin/nodes/:id/:gate (nodes), GET /v1/admin/providers
 * (inference: never a key), GET /v1/admin/backup (backup: a replica only redacted).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createAccount } from "../../../src/domains/accounts/service.ts";
import { scrubCredentials } from "../../../src/domains/backup/admin-status.ts";
import { CHECK_INTERVAL_MS, saveCatalog } from "../../../src/domains/inference/catalog.ts";
import type { ModelConfig, ProviderConfig } from "../../../src/domains/inference/config.ts";
import { sealApiKey } from "../../../src/domains/inference/providers/credentials.ts";
import { enrollNode } from "../../../src/domains/nodes/service.ts";
import { ADMIN_TOKEN, bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const admin = bearer(ADMIN_TOKEN);

describe("GET /v1/admin/nodes and POST /v1/admin/nodes/:id/:gate", () => {
  test("the fleet as the operator sees it, never a node key; any node can be drained and disabled, audited as admin_api", async () => {
    h = makeHarness({ admin: true });
    expect((await h.json("GET", "/v1/admin/nodes", { headers: admin })).body).toEqual([]);
    const owner = createAccount(h.ctx);
    const a = enrollNode(h.ctx, "cli", { name: "edge-1" });
    h.clock.advance(1000);
    const b = enrollNode(h.ctx, "cli", { name: "edge-2", kinds: ["sandbox", "gpu"], accountId: owner.id });

    const fleet = await h.json("GET", "/v1/admin/nodes", { headers: admin });
    expect(fleet.status).toBe(200);
    expect(fleet.body.map((n: { id: string }) => n.id)).toEqual([a.node_id, b.node_id]);
    expect(fleet.body[1]).toMatchObject({ name: "edge-2", kinds: ["sandbox", "gpu"], account_id: owner.id, status: "pending", approved: false, key_prefix: b.node_key.slice(0, 13), endpoint: null });
    expect(JSON.stringify(fleet.body)).not.toContain(a.node_key);
    expect(JSON.stringify(fleet.body)).not.toContain(b.node_key);

    // The operator gates a node enrolled for an account, and one enrolled for nobody.
    const drain = await h.json("POST", `/v1/admin/nodes/${b.node_id}/draining`, { body: { set: true }, headers: admin });
    expect(drain.status).toBe(200);
    expect(drain.body).toMatchObject({ id: b.node_id, draining: true, disabled: false, account_id: owner.id });
    const disable = await h.json("POST", `/v1/admin/nodes/${a.node_id}/disabled`, { body: { set: true }, headers: admin });
    expect(disable.body).toMatchObject({ id: a.node_id, disabled: true });
    const lift = await h.json("POST", `/v1/admin/nodes/${a.node_id}/disabled`, { body: { set: false }, headers: admin });
    expect(lift.body.disabled).toBe(false);
    expect((await h.json("GET", "/v1/admin/nodes", { headers: admin })).body.map((n: { draining: boolean; disabled: boolean }) => [n.draining, n.disabled])).toEqual([
      [false, false],
      [true, false],
    ]);
    const audit = h.ctx.audit.recent().filter((e) => e.actor === "admin_api");
    expect(audit.map((e) => [e.action, e.target])).toEqual([
      ["node.disabled.off", a.node_id],
      ["node.disabled.on", a.node_id],
      ["node.draining.on", b.node_id],
    ]);
  });

  test("an unknown node answers 404; a gate other than disabled or draining, or a bad body, 400 naming the field", async () => {
    h = makeHarness({ admin: true });
    const node = enrollNode(h.ctx, "cli", { name: "edge" });
    expect((await h.json("POST", "/v1/admin/nodes/node_nope/draining", { body: { set: true }, headers: admin })).status).toBe(404);
    const cases: [string, unknown, string][] = [
      ["paused", { set: true }, "params.gate"],
      ["draining", {}, "set"],
      ["draining", { set: "true" }, "set"],
      ["draining", { on: true }, "set"], // the body is {set}, as on the account's own gate route
    ];
    for (const [gate, body, param] of cases) {
      const r = await h.json("POST", `/v1/admin/nodes/${node.node_id}/${gate}`, { body, headers: admin });
      expect([gate, JSON.stringify(body), r.status, r.body.error.param]).toEqual([gate, JSON.stringify(body), 400, param]);
    }
  });
});

describe("GET /v1/admin/providers", () => {
  const KEY = "sk-ant-admin-view-SECRET-0123456789";
  process.env.SVC_TEST_ADMIN_VIEW_KEY = "sk-openai-admin-view-SECRET-987654321";

  test("providers with kind, base URL host, key source and availability, never a key; every model with its prices", async () => {
    h = makeHarness({ admin: true });
    const sealed = sealApiKey(h.ctx.sealer, "anth", KEY);
    const providers: ProviderConfig[] = [
      {
        name: "oa",
        kind: "openai",
        base_url: "https://alice:hunter2@api.example.com:8443/v1?api_key=QUERYSECRET",
        api_key_env: "SVC_TEST_ADMIN_VIEW_KEY",
        regions: ["us"],
        privacy_tiers: ["standard"],
        timeout_secs: 60,
        headers: { "X-Org": "HEADERSECRET" },
        supports_responses: true,
      },
      { name: "anth", kind: "anthropic", base_url: "https://api.anthropic.example", api_key_sealed: sealed, regions: [], privacy_tiers: ["zero_retention"], timeout_secs: 600, supports_responses: false },
      { name: "gone", kind: "openai", base_url: "http://127.0.0.1:9/v1", api_key_env: "SVC_TEST_ADMIN_VIEW_NEVER_SET", regions: [], privacy_tiers: ["standard"], timeout_secs: 30, supports_responses: false },
    ];
    const chat: ModelConfig = {
      id: "gpt-x",
      provider: "oa",
      upstream: "gpt-x-2026",
      type: "chat",
      input_micro_usd_per_mtok: 150_000,
      output_micro_usd_per_mtok: 600_000,
      cached_input_micro_usd_per_mtok: 75_000,
      context_length: 128_000,
      max_output: 16_384,
      modalities: ["text", "image"],
      fallback_providers: ["gone"],
      created: 1_700_000_000,
    };
    const orphan: ModelConfig = { id: "dark", provider: "gone", upstream: "dark", type: "embedding", input_micro_usd_per_mtok: 20_000, modalities: ["text"], fallback_providers: [], created: 1_700_000_001 };
    const claude: ModelConfig = { id: "claude-x", provider: "anth", upstream: "claude-x", type: "chat", input_micro_usd_per_mtok: 3_000_000, modalities: ["text"], fallback_providers: [], created: 1_700_000_002 };
    saveCatalog(h.ctx.config.config_path, { providers, models: [chat, orphan, claude] });
    h.clock.advance(CHECK_INTERVAL_MS); // the running catalogue picks the file up, as after `svc providers add`

    const r = await h.json("GET", "/v1/admin/providers", { headers: admin });
    expect(r.status).toBe(200);
    expect(r.body.providers).toEqual([
      {
        name: "oa",
        kind: "openai",
        base_url_host: "api.example.com:8443",
        credential: "env",
        api_key_env: "SVC_TEST_ADMIN_VIEW_KEY",
        available: true,
        unavailable_reason: null,
        regions: ["us"],
        privacy_tiers: ["standard"],
        timeout_secs: 60,
        supports_responses: true,
        models: ["gpt-x"],
        fallback_for: [],
      },
      expect.objectContaining({ name: "anth", kind: "anthropic", base_url_host: "api.anthropic.example", credential: "sealed", api_key_env: null, available: true, models: ["claude-x"] }),
      expect.objectContaining({ name: "gone", credential: "env", available: false, unavailable_reason: expect.stringContaining("SVC_TEST_ADMIN_VIEW_NEVER_SET"), models: ["dark"], fallback_for: ["gpt-x"] }),
    ]);
    expect(r.body.models).toEqual([
      {
        id: "gpt-x",
        type: "chat",
        provider: "oa",
        upstream: "gpt-x-2026",
        fallback_providers: ["gone"],
        serving_provider: "oa",
        listed: true,
        pricing: { input_micro_usd_per_mtok: 150_000, output_micro_usd_per_mtok: 600_000, cached_input_micro_usd_per_mtok: 75_000 },
        context_length: 128_000,
        max_output: 16_384,
        modalities: ["text", "image"],
        price_micro_usd_per_image: null,
        price_micro_usd_per_second: null,
        created: 1_700_000_000,
      },
      expect.objectContaining({ id: "dark", type: "embedding", serving_provider: null, listed: false, pricing: { input_micro_usd_per_mtok: 20_000, output_micro_usd_per_mtok: null, cached_input_micro_usd_per_mtok: null } }),
      // Priced for input only: configured (here) but refused when called, never billed at 0.
      expect.objectContaining({ id: "claude-x", serving_provider: "anth", pricing: expect.objectContaining({ output_micro_usd_per_mtok: null }) }),
    ]);

    const text = JSON.stringify(r.body);
    for (const secret of [KEY, sealed, process.env.SVC_TEST_ADMIN_VIEW_KEY!, "hunter2", "alice", "QUERYSECRET", "HEADERSECRET", "/v1"]) expect([secret, text.includes(secret)]).toEqual([secret, false]);
  });

  test("with no providers configured: empty lists", async () => {
    h = makeHarness({ admin: true });
    const r = await h.json("GET", "/v1/admin/providers", { headers: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ providers: [], models: [] });
  });
});

describe("GET /v1/admin/backup", () => {
  test("replication off: the posture says so, and the status is what `svc backup status` prints (Litestream found)", async () => {
    h = makeHarness({ admin: true });
    const r = await h.json("GET", "/v1/admin/backup", { headers: admin });
    expect(r.status).toBe(200);
    expect(r.body.replication).toMatchObject({ enabled: false, state: "off", replica_kind: null, lag_seconds: null, restarts: 0, last_error: null });
    expect(r.body.status).toMatchObject({ replica: null, replica_kind: null, daemon: null, replica_files: null, problems: [] });
    // The test machine has the pinned Litestream (test/run.sh installs it).
    expect(r.body.status.litestream).toMatch(/litestream$/);
    expect(r.body.status.litestream_version).toBe("v0.5.18");
  });

  test("a replica URL with credentials appears only redacted, in the status and in a Litestream error", async () => {
    const replica = "s3://AKIAEXAMPLE:supersecret@bucket/db?endpoint=http://127.0.0.1:9&region=us-east-1&secret_key=hunter2";
    h = makeHarness({
      admin: true,
      config: (c) => {
        c.backup.replica = replica;
        c.backup.litestream = "/nonexistent/litestream"; // nothing is contacted: the status stops at "not installed"
      },
    });
    h.ctx.replication.update({ state: "restarting", last_error: `cannot write to ${replica}: access denied` });
    const r = await h.json("GET", "/v1/admin/backup", { headers: admin });
    expect(r.status).toBe(200);
    expect(r.body.replication).toMatchObject({ enabled: true, state: "restarting", replica_kind: "s3" });
    expect(r.body.replication.last_error).toStartWith("cannot write to s3://redacted@bucket/db?");
    expect(r.body.status).toMatchObject({ replica_kind: "s3", litestream: null, litestream_version: null, problems: ["litestream is not installed: nothing is being replicated"] });
    expect(r.body.status.replica).toContain("secret_key=redacted");
    const text = JSON.stringify(r.body);
    expect(text).not.toContain("supersecret");
    expect(text).not.toContain("hunter2");
  });

  test("scrubbing free text: user:password@ of any URL and secret-looking query values", () => {
    expect(scrubCredentials("failed: https://u:p@host/x?token=abc&ok=1 and sftp://me@h/", null)).toBe("failed: https://redacted@host/x?token=redacted&ok=1 and sftp://redacted@h/");
  });
});

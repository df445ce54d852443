/**
 * The tools that reach other areas, over POST /v1/mcp with the official SDK client: sandbox_run
 * runs real code under bubblewrap and carries the sandbox receipt; state_set/get/list go
 * through the state area (sealed at rest); memory_search embeds the query through the metered
 * inference pipeline (a local embedding upstream) and ranks the right document first. Each
 * receipt verifies with viem against the deployment's signer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseInferenceSection } from "../../../src/domains/inference/config.ts";
import { closeSandboxes } from "../../../src/domains/sandboxes/index.ts";
import { serveSvc, type ServedSvc, tenant } from "../../support/mcp-svc.ts";
import { sandboxTempDir } from "../../support/sandbox-runner.ts";
import { EMBED_MODEL, EMBED_PRICE, seedDocuments, startEmbeddingStub } from "../memory/memory-support.ts";
import { connect, text, verifiedReceipt } from "./mcp-support.ts";

let svc: ServedSvc;
let t: ReturnType<typeof tenant>;
beforeAll(() => {
  const stub = startEmbeddingStub();
  svc = serveSvc((c) => {
    Object.assign(
      c,
      parseInferenceSection({
        providers: [{ name: "emb", kind: "openai", base_url: stub.baseUrl, api_key_env: "SVC_TEST_EMBED_KEY", timeout_secs: 10 }],
        models: [{ id: EMBED_MODEL, provider: "emb", upstream: "hashed", type: "embedding", input_micro_usd_per_mtok: EMBED_PRICE }],
      }),
    );
    c.memory.embedding_model = EMBED_MODEL;
    // Workspaces where the sandbox uid can reach them (a test's temp data dir is 0700).
    c.sandboxes.dir = `${sandboxTempDir("svc-mcp-sbx")}/gateway`;
  });
  t = tenant(svc.h, { credit: 10_000_000 });
});
afterAll(async () => {
  await closeSandboxes(svc.h.ctx);
  svc.stop();
});

const mcpUrl = () => `${svc.base}/v1/mcp`;
const call = async (name: string, args: Record<string, unknown>) => {
  const c = await connect(mcpUrl(), t.key);
  try {
    return await c.client.callTool({ name, arguments: args });
  } finally {
    await c.close();
  }
};

describe("sandbox_run", () => {
  test("runs the code under bubblewrap; exit code, stdout and the sandbox receipt in _meta", async () => {
    const before = svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd;
    const result = await call("sandbox_run", { language: "python", code: "print(6 * 7)" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ exit_code: 0, stdout: "42\n", status: "ok" });
    const receipt = await verifiedReceipt(result, svc.h.ctx.signer.address);
    expect(receipt.kind).toBe("sandbox");
    expect(receipt.cost_micro_usd).toBeGreaterThan(0);
    expect(svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd).toBe(before - receipt.cost_micro_usd);
  });

  test("a failing program is a tool error with its exit code; an unknown language is refused by name", async () => {
    const failed = await call("sandbox_run", { language: "bash", code: "echo oops >&2; exit 3" });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ exit_code: 3, stderr: "oops\n" });
    const unknown = await call("sandbox_run", { language: "cobol", code: "x" });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain("language");
  });
});

describe("state tools", () => {
  test("set, get and list go through the state area; the value is sealed at rest; a missing key is a tool error", async () => {
    const marker = `mcp-state-${crypto.randomUUID()}`;
    const set = await call("state_set", { key: "plan", namespace: "agent", value: { step: 2, note: marker } });
    expect(set.isError).toBeFalsy();
    expect(set.structuredContent).toMatchObject({ key: "plan", namespace: "agent" });
    const got = await call("state_get", { key: "plan", namespace: "agent" });
    expect(got.structuredContent).toMatchObject({ key: "plan", namespace: "agent", value: { step: 2, note: marker } });
    expect((await call("state_list", { namespace: "agent" })).structuredContent).toEqual({ keys: ["plan"], namespace: "agent" });
    const missing = await call("state_get", { key: "nope" });
    expect(missing.isError).toBe(true);
    svc.h.ctx.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    expect((await Bun.file(`${svc.h.dir}/svc.db`).text()).includes(marker)).toBe(false);
  });
});

describe("memory_search", () => {
  test("embeds the query (billed, receipted) and ranks the right document first", async () => {
    const auth = { authorization: `Bearer ${t.key}` };
    const made = await svc.h.json("POST", "/v1/memory/collections", { headers: auth, body: { name: "notes" } });
    expect(made.status).toBe(201);
    expect((await svc.h.json("POST", `/v1/memory/collections/${made.body.id}/documents`, { headers: auth, body: { documents: seedDocuments } })).status).toBe(200);
    const result = await call("memory_search", { collection_id: made.body.id, query: "baking bread with flour and yeast", top_k: 3 });
    expect(result.isError).toBeFalsy();
    const results = (result.structuredContent as { results: { document_id: string; score: number; chunk: string }[] }).results;
    expect(results[0]!.document_id).toBe("bread");
    const receipt = await verifiedReceipt(result, svc.h.ctx.signer.address);
    expect(receipt.kind).toBe("inference");
    expect(receipt.cost_micro_usd).toBeGreaterThan(0);
  });

  test("an unknown collection is a tool error, nothing billed", async () => {
    const before = svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd;
    const result = await call("memory_search", { collection_id: "mc_missing", query: "q" });
    expect(result.isError).toBe(true);
    expect(svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd).toBe(before);
  });
});

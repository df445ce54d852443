/**
 * The OpenAI Batch API, driven by the official openai SDK (files.create, batches.create,
 * batches.retrieve, batches.list, batches.cancel, files.content) against a real svc socket and
 * the local upstream stub: every line metered and receipted, per-line costs summing to the
 * ledger's debit, failures in the error file, cancel, expiry, a revoked key, retries, credit
 * that runs short under concurrency, and tenancy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { toFile } from "openai";
import { purgeExpiredFiles } from "../../../src/domains/files/service.ts";
import { revokeKey } from "../../../src/domains/keys/index.ts";
import { bearer } from "../../support/harness.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { type Gateway, USD, verifyReceipt } from "../inference/inference-support.ts";
import { chatCalls, chatLine, fileJson, jsonl, runBatch, startBatchGateway, uploadBatchFile, waitFor } from "./batches-support.ts";

const outboxOf = (g: Gateway, type: string) => g.h.ctx.outbox.since(0, 100_000).filter((e) => e.type === type && e.account_id === g.accountId);

describe("a 100-line batch", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startBatchGateway();
  });
  afterAll(() => g.stop());

  test("completes: one output line per input line, exact per-line costs summing to the ledger debit, each with a verifiable receipt", async () => {
    const before = g.h.ctx.ledger.balance(g.accountId);
    const lines = Array.from({ length: 100 }, (_, i) => chatLine(i));
    // Counted before the batch exists: the runner may start calling the upstream before create's answer is read.
    const upstreamBefore = chatCalls(g).length;
    const created = await runBatch(g, lines);
    expect(["validating", "in_progress"]).toContain(created.status);
    expect(created.request_counts).toEqual({ total: 100, completed: 0, failed: 0 });

    const done = await waitFor(g, created.id, ["completed"]);
    expect(done.request_counts).toEqual({ total: 100, completed: 100, failed: 0 });
    expect(done.error_file_id).toBeNull();
    expect(done.completed_at).toBeGreaterThan(0);
    expect(chatCalls(g).length - upstreamBefore).toBe(100);

    const out = await fileJson(g, done.output_file_id);
    expect(out.map((l) => l.custom_id).sort()).toEqual(lines.map((l) => l.custom_id).sort());
    for (const l of out) {
      expect(l.response.status_code).toBe(200);
      expect(l.response.body.object).toBe("chat.completion");
      expect(l.response.body.choices[0].message.content).toContain(`question number ${l.custom_id.slice(1)}`);
      expect(l.error).toBeNull();
      expect(l.receipt_id).toMatch(/^rcpt_/);
      expect(Number.isInteger(l.cost_micro_usd) && l.cost_micro_usd > 0).toBe(true);
    }
    const sum = out.reduce((n, l) => n + l.cost_micro_usd, 0);
    const after = g.h.ctx.ledger.balance(g.accountId);
    expect((done as any).cost_micro_usd).toBe(sum);
    expect(before.balance_micro_usd - after.balance_micro_usd).toBe(sum);
    expect(after.held_micro_usd).toBe(0);

    // Receipts: signed by the deployment, naming the batch, costing what the line says.
    for (const l of out.slice(0, 5)) {
      const r = await g.h.json("GET", `/v1/receipts/${l.receipt_id}`, { headers: bearer(g.sessionToken) });
      expect(r.status).toBe(200);
      const payload = await verifyReceipt(g, (r.body as any).receipt, (r.body as any).signature);
      expect(r.body.cost_micro_usd).toBe(l.cost_micro_usd);
      expect(JSON.stringify(payload)).toContain(created.id);
    }

    // batch_completed went through the outbox, content-free.
    const events = outboxOf(g, "batch_completed").filter((e) => e.payload.batch_id === created.id);
    expect(events.map((e) => e.payload)).toEqual([{ batch_id: created.id, endpoint: "/v1/chat/completions", status: "completed", request_counts: { total: 100, completed: 100, failed: 0 } }]);

    // The input's content is destroyed when its batch ends: 410, the record stays.
    const input = await g.openai.files.retrieve(created.input_file_id);
    expect((input as any).content_available).toBe(false);
    const gone = await fetch(`${g.url}/v1/files/${created.input_file_id}/content`, { headers: bearer(g.key) });
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as any).error.type).toBe("file_content_gone");
    // The output file is a file of the account, purpose batch_output.
    const output = await g.openai.files.retrieve(done.output_file_id!);
    expect([output.purpose, (output as any).line_count]).toEqual(["batch_output", 100]);
  });

  test("batches.list: list object with has_more, newest first, pages with after", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const b = await runBatch(g, [chatLine(i)]);
      ids.push(b.id);
      await waitFor(g, b.id);
    }
    const raw = await fetch(`${g.url}/v1/batches?limit=2`, { headers: bearer(g.key) });
    const page = (await raw.json()) as any;
    expect(page.object).toBe("list");
    expect(page.has_more).toBe(true);
    expect(page.data.map((b: any) => b.id)).toEqual([ids[2], ids[1]]);
    const seen: string[] = [];
    for await (const b of g.openai.batches.list({ limit: 2 })) seen.push(b.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 3)).toEqual([ids[2]!, ids[1]!, ids[0]!]);
  });

  test("/v1/messages and /v1/embeddings lines answer in their own API's shape", async () => {
    const messages = await runBatch(g, [{ custom_id: "m1", method: "POST", url: "/v1/messages", body: { model: "claude-test", max_tokens: 50, messages: [{ role: "user", content: "hi" }] } }], "/v1/messages");
    const embeddings = await runBatch(g, [{ custom_id: "e1", method: "POST", url: "/v1/embeddings", body: { model: "embed-test", input: ["one", "two"] } }], "/v1/embeddings");
    const [m, e] = [await waitFor(g, messages.id, ["completed"]), await waitFor(g, embeddings.id, ["completed"])];
    const [mOut] = await fileJson(g, m.output_file_id);
    expect([mOut.custom_id, mOut.response.body.type, mOut.response.body.role]).toEqual(["m1", "message", "assistant"]);
    const [eOut] = await fileJson(g, e.output_file_id);
    expect(eOut.response.body.data).toHaveLength(2);
    expect(eOut.cost_micro_usd).toBeGreaterThanOrEqual(0);
  });
});

describe("failures", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startBatchGateway({ harness: { config: (c) => (c.batches.line_attempts = 3) } });
  });
  afterAll(() => g.stop());

  test("a failing line lands in the error file with its status and error; the others complete and the batch goes on", async () => {
    const lines = [chatLine(0), { ...chatLine(1, "no-such-model") }, chatLine(2), chatLine(3, "embed-test")];
    const done = await waitFor(g, (await runBatch(g, lines)).id, ["completed"]);
    expect(done.request_counts).toEqual({ total: 4, completed: 2, failed: 2 });
    const errors = await fileJson(g, done.error_file_id);
    expect(errors.map((l) => [l.custom_id, l.response.status_code, l.error.code])).toEqual([
      ["r1", 404, "model_not_found"],
      ["r3", 400, "invalid_request"],
    ]);
    expect(errors.every((l) => l.receipt_id === null && l.cost_micro_usd === 0)).toBe(true);
    expect((await fileJson(g, done.output_file_id)).map((l) => l.custom_id)).toEqual(["r0", "r2"]);
  });

  test("a retryable upstream failure is tried line_attempts times, billed never; a batch where no line succeeds fails with the lines' common error", async () => {
    const before = chatCalls(g).length;
    const balance = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const created = await runBatch(g, [chatLine(0, "gpt-fail"), chatLine(1, "gpt-fail")]);
    const done = await waitFor(g, created.id, ["failed"]);
    expect(chatCalls(g).length - before).toBe(2 * 3);
    expect(done.request_counts).toEqual({ total: 2, completed: 0, failed: 2 });
    expect((done as any).error_class).toBe("upstream_error");
    expect(done.errors?.data?.[0]?.code).toBe("upstream_error");
    expect(done.output_file_id).toBeNull();
    expect(g.h.ctx.ledger.balance(g.accountId).balance_micro_usd).toBe(balance);
    const failed = outboxOf(g, "batch_failed").find((e) => e.payload.batch_id === created.id)!;
    expect(failed.payload).toEqual({ batch_id: created.id, endpoint: "/v1/chat/completions", status: "failed", request_counts: { total: 2, completed: 0, failed: 2 }, error_class: "upstream_error" });
  });

  test("a revoked key stops its batch: lines in flight finish, the rest go to the error file, the batch fails as api_key_revoked", async () => {
    const key = apiKeyFor(g.h.ctx, g.accountId);
    const { openai } = g.clientsFor(key.token);
    const file = await uploadBatchFile(g, Array.from({ length: 30 }, (_, i) => chatLine(i, "gpt-slow")), openai);
    const created = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    await waitFor(g, created.id, ["in_progress"], (b) => b.request_counts!.completed > 0);
    revokeKey(g.h.ctx, g.accountId, key.id);
    const done = await waitFor(g, created.id, ["failed"]);
    expect((done as any).error_class).toBe("api_key_revoked");
    expect(done.request_counts!.completed).toBeGreaterThan(0);
    expect(done.request_counts!.completed + done.request_counts!.failed).toBe(30);
    const errors = await fileJson(g, done.error_file_id);
    expect(errors.length).toBe(done.request_counts!.failed);
    expect(new Set(errors.map((l) => l.error.code))).toEqual(new Set(["api_key_revoked"]));
  });
});

describe("cancel and expiry", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startBatchGateway({ harness: { config: (c) => (c.batches.line_concurrency = 2) } });
  });
  afterAll(() => g.stop());

  test("cancel mid-batch: lines already run are billed and returned, no other line starts, no batch event fires", async () => {
    const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const created = await runBatch(g, Array.from({ length: 40 }, (_, i) => chatLine(i, "gpt-slow")));
    await waitFor(g, created.id, ["in_progress"], (b) => b.request_counts!.completed >= 2);
    const cancelling = await g.openai.batches.cancel(created.id);
    expect(["cancelling", "cancelled"]).toContain(cancelling.status);
    expect(cancelling.cancelling_at).toBeGreaterThan(0);
    const done = await waitFor(g, created.id, ["cancelled"]);
    const calls = chatCalls(g).filter((r) => JSON.stringify(r.body).includes("question number")).length;
    const out = await fileJson(g, done.output_file_id);
    expect(out.length).toBe(done.request_counts!.completed);
    expect(calls).toBe(out.length);
    expect(out.length).toBeLessThan(40);
    const errors = await fileJson(g, done.error_file_id);
    expect(out.length + errors.length).toBe(40);
    expect(new Set(errors.map((l) => l.error.code))).toEqual(new Set(["batch_cancelled"]));
    expect(errors.every((l) => l.response === null)).toBe(true);
    expect(before - g.h.ctx.ledger.balance(g.accountId).balance_micro_usd).toBe(out.reduce((n, l) => n + l.cost_micro_usd, 0));
    expect([...outboxOf(g, "batch_completed"), ...outboxOf(g, "batch_failed")].filter((e) => e.payload.batch_id === created.id)).toEqual([]);
    // Cancelling again answers the batch as it is; an ended batch that was not cancelled cannot be.
    const again = await g.h.json("POST", `/v1/batches/${created.id}/cancel`, { headers: bearer(g.key) });
    expect([again.status, again.body.status]).toEqual([200, "cancelled"]);
    const other = await runBatch(g, [chatLine(0)]);
    await waitFor(g, other.id, ["completed"]);
    const refused = await g.post(`/v1/batches/${other.id}/cancel`, {});
    expect([refused.status, ((await refused.json()) as any).error.type]).toEqual([409, "batch_not_cancellable"]);
  });

  test("a batch still running when its 24h window closes ends expired, its lines in the error file as batch_expired, and batch_failed fires", async () => {
    // Held before it runs (the runner stopped), so the window closes with every line still to run.
    await g.h.ctx.batchRunner.stop(1000);
    const created = await runBatch(g, [chatLine(0), chatLine(1)]);
    expect(created.status).toBe("validating");
    g.h.clock.advance(24 * 3_600_000 + 1000);
    // The expiry job falls due on the moved clock; the scheduler loop runs it within a poll or two.
    await g.h.ctx.scheduler.runDue();
    g.h.ctx.batchRunner.start();
    const done = await waitFor(g, created.id, ["expired"]);
    expect(done.expired_at).toBeGreaterThan(0);
    expect(done.request_counts).toEqual({ total: 2, completed: 0, failed: 2 });
    expect((await fileJson(g, done.error_file_id)).map((l) => [l.custom_id, l.error.code])).toEqual([
      ["r0", "batch_expired"],
      ["r1", "batch_expired"],
    ]);
    const event = outboxOf(g, "batch_failed").find((e) => e.payload.batch_id === created.id)!;
    expect([event.payload.status, event.payload.error_class]).toEqual(["expired", "batch_expired"]);
  });
});

describe("an input file that expires mid-batch", () => {
  test("is not purged while its batch reads it: every line still runs, then its content goes with the batch", async () => {
    const g = await startBatchGateway();
    try {
      await g.h.ctx.batchRunner.stop(1000);
      const file = await g.openai.files.create({ file: await toFile(Buffer.from(jsonl([chatLine(0), chatLine(1)])), "in.jsonl"), purpose: "batch", expires_after: { anchor: "created_at", seconds: 3600 } });
      expect(file.expires_at).toBe(file.created_at + 3600);
      const created = await g.openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
      const stored = () => g.h.ctx.db.query("SELECT count(*) AS n FROM file_lines WHERE file_id = ?").get(file.id) as { n: number };
      g.h.clock.advance(3601_000);
      purgeExpiredFiles(g.h.ctx); // (the scheduler's own purge run may come first: the same rule)
      expect(stored().n).toBe(2);
      g.h.ctx.batchRunner.start();
      const done = await waitFor(g, created.id, ["completed"]);
      expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
      purgeExpiredFiles(g.h.ctx);
      expect(g.h.ctx.db.query("SELECT count(*) AS n FROM files WHERE id = ?").get(file.id)).toEqual({ n: 0 });
      expect(stored().n).toBe(0);
    } finally {
      await g.stop();
    }
  });
});

describe("credit", () => {
  test("credit that runs short under concurrency: no line spends what the account does not have; short lines fail insufficient_credit; costs sum to the debit", async () => {
    // Each line reserves its worst case (~2,000 µUSD: 1,000 output tokens at $2/M) and settles ~20: 5,000 µUSD lets two reserve at once, not three.
    const g = await startBatchGateway({ credit: 5000, harness: { config: (c) => (c.batches.line_concurrency = 8) } });
    try {
      const created = await runBatch(g, Array.from({ length: 40 }, (_, i) => chatLine(i, "gpt-slow")));
      const done = await waitFor(g, created.id);
      const out = await fileJson(g, done.output_file_id);
      const errors = await fileJson(g, done.error_file_id);
      expect(out.length + errors.length).toBe(40);
      expect(out.length).toBeGreaterThan(0);
      expect(errors.length).toBeGreaterThan(0);
      expect(new Set(errors.map((l) => [l.response.status_code, l.error.code].join(" ")))).toEqual(new Set(["402 insufficient_credit"]));
      const balance = g.h.ctx.ledger.balance(g.accountId);
      expect(balance.balance_micro_usd).toBeGreaterThanOrEqual(0);
      expect(balance.held_micro_usd).toBe(0);
      expect(5000 - balance.balance_micro_usd).toBe(out.reduce((n, l) => n + l.cost_micro_usd, 0));
    } finally {
      await g.stop();
    }
  });
});

describe("bad requests and tenancy", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startBatchGateway({ harness: { config: (c) => (c.batches.max_active_per_account = 2) } });
  });
  afterAll(() => g.stop());

  const create = (body: Record<string, unknown>, key = g.key) =>
    g.h.json("POST", "/v1/batches", { headers: bearer(key), body: { endpoint: "/v1/chat/completions", completion_window: "24h", ...body } });

  test("each bad creation is a 400 naming the field (or the line), and nothing is created", async () => {
    const file = await uploadBatchFile(g, [chatLine(0), { ...chatLine(1), url: "/v1/embeddings", body: { model: "embed-test", input: "x" } }]);
    const good = await uploadBatchFile(g, [chatLine(0)]);
    const cases: [Record<string, unknown>, number, string, string | undefined][] = [
      [{ input_file_id: good.id, endpoint: "/v1/images/generations" }, 400, "invalid_request", "endpoint"],
      [{ input_file_id: good.id, completion_window: "48h" }, 400, "invalid_request", "completion_window"],
      [{ input_file_id: good.id, metadata: { k: 1 } }, 400, "invalid_request", "metadata.k"],
      [{ input_file_id: file.id }, 400, "invalid_file", "input_file_id"],
      [{ input_file_id: "file_nope" }, 404, "not_found", undefined],
      [{ input_file_id: good.id, extra: true }, 400, "invalid_request", undefined],
    ];
    for (const [body, status, type, param] of cases) {
      const r = await create(body);
      expect([JSON.stringify(body), r.status, r.body.error.type]).toEqual([JSON.stringify(body), status, type]);
      if (param) expect(r.body.error.param).toBe(param);
    }
    expect((await create({ input_file_id: file.id })).body.error.message).toContain("line 2");
    expect((await g.h.json("GET", "/v1/batches", { headers: bearer(g.key) })).body.data).toEqual([]);
  });

  test("an output file is not an input; a file feeds one batch; running batches are capped per account", async () => {
    const first = await runBatch(g, [chatLine(0)]);
    const done = await waitFor(g, first.id, ["completed"]);
    const asInput = await create({ input_file_id: done.output_file_id });
    expect([asInput.status, asInput.body.error.param]).toEqual([400, "input_file_id"]);
    const again = await create({ input_file_id: first.input_file_id });
    expect(again.status).toBe(400); // its content is gone with its batch

    await g.h.ctx.batchRunner.stop(1000); // batches stay running (validating)
    const held: string[] = [];
    try {
      const f = await uploadBatchFile(g, [chatLine(0)]);
      const one = await create({ input_file_id: f.id });
      expect(one.status).toBe(200);
      held.push(one.body.id);
      const reuse = await create({ input_file_id: f.id });
      expect([reuse.status, reuse.body.error.type]).toEqual([409, "file_in_use"]);
      const del = await g.h.json("DELETE", `/v1/files/${f.id}`, { headers: bearer(g.key) });
      expect([del.status, del.body.error.type]).toEqual([409, "file_in_use"]);
      const two = await create({ input_file_id: (await uploadBatchFile(g, [chatLine(1)])).id });
      expect(two.status).toBe(200);
      held.push(two.body.id);
      const third = await create({ input_file_id: (await uploadBatchFile(g, [chatLine(2)])).id });
      expect([third.status, third.body.error.type]).toEqual([409, "batch_limit_reached"]);
    } finally {
      g.h.ctx.batchRunner.start();
      for (const id of held) await waitFor(g, id);
    }
  });

  test("another tenant's batch and file ids answer 404", async () => {
    const mine = await runBatch(g, [chatLine(0)]);
    const done = await waitFor(g, mine.id);
    const { account } = accountWithSession(g.h.ctx);
    const theirs = apiKeyFor(g.h.ctx, account.id).token;
    for (const [method, path] of [
      ["GET", `/v1/batches/${mine.id}`],
      ["POST", `/v1/batches/${mine.id}/cancel`],
      ["GET", `/v1/files/${done.output_file_id}`],
      ["GET", `/v1/files/${done.output_file_id}/content`],
      ["DELETE", `/v1/files/${done.output_file_id}`],
    ] as const) {
      const r = await g.h.json(method, path, { headers: bearer(theirs) });
      expect([method, path, r.status, r.body.error.type]).toEqual([method, path, 404, "not_found"]);
    }
    expect((await create({ input_file_id: done.output_file_id }, theirs)).status).toBe(404);
    expect((await g.h.json("GET", "/v1/batches", { headers: bearer(theirs) })).body.data).toEqual([]);
  });
});

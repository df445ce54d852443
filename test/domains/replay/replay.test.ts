/**
 * Replay capsules: sealing a chat call's request (checked against its content-free receipt,
 * only with confirm_seal), the metadata-only list and record, replaying through the metered
 * pipeline with a match and a mismatch (both receipts verified with viem), destroying the
 * sealed content, bad input and tenancy.
 */
import { describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { repointModel, startGateway, USD, usageEvents, verifyReceipt } from "../inference/inference-support.ts";
import { capsuleOf, originalCall, replay, seal, session, sha256 } from "./replay-support.ts";

const SECRET = "PROMPT-MARKER-5c1e";

const chatBody = (user: string, extra: Record<string, unknown> = {}) => ({
  model: "gpt-test",
  messages: [
    { role: "system", content: `be brief ${SECRET}` },
    { role: "user", content: user },
  ],
  max_tokens: 60,
  temperature: 0.2,
  ...extra,
});

describe("sealing and replaying", () => {
  test("a sealed call replays through the meter with the same output: matches, with both receipts", async () => {
    const g = await startGateway();
    const o = await originalCall(g, chatBody("[[say The answer is 42.]] what is six times seven"));
    expect(o.text).toBe("The answer is 42.");

    const capsule = await capsuleOf(g, o);
    expect(capsule).toMatchObject({
      receipt_id: o.receiptId,
      run_id: null,
      model: "gpt-test",
      message_count: 2,
      parameters: { max_tokens: 60, temperature: 0.2, json: false },
      output_sha256: sha256(o.text),
      context_merkle_root: null,
      source_set: null,
      sealed: true,
      destroyed_at: null,
      replay_count: 0,
      last_replay: null,
    });
    expect(capsule.id).toMatch(/^rcap_/);
    expect(capsule.request_sha256).toMatch(/^[0-9a-f]{64}$/);
    // Metadata only: neither the answer nor the table holds the prompt in clear.
    expect(JSON.stringify(capsule)).not.toContain(SECRET);
    const row = g.h.ctx.db.query<any, []>("SELECT * FROM replay_capsules").get();
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row.sealed).toStartWith("v1.");

    const before = usageEvents(g).length;
    const r = await replay(g, capsule.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ capsule_id: capsule.id, matches: true, output: o.text });
    expect(r.body.replay.output_sha256).toBe(r.body.original.output_sha256);
    // The replay was sent upstream as the original was, and billed as a call of its own.
    const sent = g.stub.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: "stub-gpt", messages: o.body.messages, max_tokens: 60, temperature: 0.2 });
    expect(usageEvents(g).length).toBe(before + 1);

    const original = await verifyReceipt(g, r.body.original.receipt, r.body.original.signature);
    const again = await verifyReceipt(g, r.body.replay.receipt, r.body.replay.signature);
    expect(original).toMatchObject({ id: o.receiptId, kind: "inference", resource: "gpt-test", key_id: g.keyId });
    expect(again).toMatchObject({ id: r.body.replay.receipt_id, kind: "inference", resource: "gpt-test", key_id: null, status: "succeeded" });
    expect(again.id).not.toBe(original.id);
    expect(again.units.input_tokens).toBe(original.units.input_tokens);
    expect(r.body.replay.cost_micro_usd).toBe(again.cost_micro_usd);

    const one = await g.h.json("GET", `/v1/replay/capsules/${capsule.id}`, session(g));
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ replay_count: 1, last_replay: { receipt_id: again.id, matches: true, output_sha256: sha256(o.text) } });
    const list = await g.h.json("GET", "/v1/replay/capsules", session(g));
    expect(list.status).toBe(200);
    expect(list.body.capsules).toEqual([one.body]);
  });

  test("the same request answered differently is reported as a mismatch, with both receipts", async () => {
    const g = await startGateway();
    // Scripted for the upstream model stub-gpt only: once gpt-test points elsewhere, the reply differs.
    const o = await originalCall(g, chatBody("[[say@stub-gpt The answer is 42.]] what is six times seven"));
    expect(o.text).toBe("The answer is 42.");
    const capsule = await capsuleOf(g, o);

    repointModel(g.h, "gpt-test", "stub-gpt-v2");
    const r = await replay(g, capsule.id);
    expect(r.status).toBe(200);
    expect(r.body.matches).toBe(false);
    expect(r.body.output).not.toBe(o.text);
    expect(r.body.original.output_sha256).toBe(sha256(o.text));
    expect(r.body.replay.output_sha256).toBe(sha256(r.body.output));
    expect(g.stub.requests.at(-1)!.body.model).toBe("stub-gpt-v2");

    const original = await verifyReceipt(g, r.body.original.receipt, r.body.original.signature);
    const again = await verifyReceipt(g, r.body.replay.receipt, r.body.replay.signature);
    expect([original.id, again.id]).toEqual([o.receiptId, r.body.replay.receipt_id]);
    expect(again.resource).toBe("gpt-test");
    expect((await g.h.json("GET", `/v1/replay/capsules/${capsule.id}`, session(g))).body.last_replay.matches).toBe(false);
  });

  test("the output may be stated as its sha256; json mode and max_completion_tokens are sealed and sent again", async () => {
    const g = await startGateway();
    const o = await originalCall(g, { ...chatBody('[[say {"ok":true}]] json please'), max_tokens: undefined, max_completion_tokens: 40, response_format: { type: "json_object" } });
    const r = await seal(g, { receipt_id: o.receiptId, confirm_seal: true, request: o.body, output_sha256: sha256(o.text) });
    expect(r.status).toBe(201);
    expect(r.body.parameters).toEqual({ max_tokens: 40, temperature: 0.2, json: true });
    const again = await replay(g, r.body.id);
    expect(again.body.matches).toBe(true);
    expect(g.stub.requests.at(-1)!.body).toMatchObject({ response_format: { type: "json_object" }, max_tokens: 40 });
  });

  test("run_id seals the run's one chat call; a run of several calls asks for receipt_id", async () => {
    const g = await startGateway();
    const o = await originalCall(g, chatBody("first question", { svc_run_id: "run-replay-1" }));
    const r = await seal(g, { run_id: "run-replay-1", confirm_seal: true, request: o.body, output: o.text });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ receipt_id: o.receiptId, run_id: "run-replay-1" });
    expect((await replay(g, r.body.id)).body.matches).toBe(true);

    const second = await originalCall(g, chatBody("second question", { svc_run_id: "run-replay-1" }));
    const ambiguous = await seal(g, { run_id: "run-replay-1", confirm_seal: true, request: second.body, output: second.text });
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body.error).toMatchObject({ type: "ambiguous_run", param: "run_id", receipt_ids: [o.receiptId, second.receiptId] });

    const unknown = await seal(g, { run_id: "no-such-run", confirm_seal: true, request: o.body, output: o.text });
    expect(unknown.status).toBe(404);
  });
});

describe("what is checked before sealing", () => {
  test("confirm_seal must be true: refused 400 naming it, and nothing is sealed", async () => {
    const g = await startGateway();
    const o = await originalCall(g, chatBody("hello"));
    for (const confirm of [undefined, false]) {
      const r = await seal(g, { receipt_id: o.receiptId, confirm_seal: confirm, request: o.body, output: o.text });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("confirm_seal");
      expect(r.body.error.message).toContain("must be true");
    }
    expect((await g.h.json("GET", "/v1/replay/capsules", session(g))).body.capsules).toEqual([]);
  });

  test("a request that contradicts the receipt is refused 422 receipt_mismatch naming the field", async () => {
    const g = await startGateway();
    const o = await originalCall(g, chatBody("hello there"));
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ...o.body, model: "gpt-chat-only" }, ["request.model"]],
      [{ ...o.body, stream: true }, ["request.stream"]],
      [{ ...o.body, max_tokens: 1 }, ["request.max_tokens"]],
      [{ ...o.body, svc_run_id: "some-run" }, ["request.svc_run_id"]],
      [{ ...o.body, svc_context: ["a document"] }, ["request.svc_context"]],
      [{ ...o.body, svc_source_set: "sset_x" }, ["request.svc_source_set"]],
      [{ ...o.body, model: "claude-test", stream: true }, ["request.model", "request.stream"]],
    ];
    for (const [request, mismatched] of cases) {
      const r = await seal(g, { receipt_id: o.receiptId, confirm_seal: true, request, output: o.text });
      expect([mismatched[0], r.status]).toEqual([mismatched[0], 422]);
      expect(r.body.error).toMatchObject({ type: "receipt_mismatch", param: mismatched[0], mismatched });
    }
    expect((await g.h.json("GET", "/v1/replay/capsules", session(g))).body.capsules).toEqual([]);
  });

  test("svc_context and svc_source_set are held against the receipt's fingerprints", async () => {
    const g = await startGateway();
    const docs = ["context one", { content: "context two", title: "t" }];
    const set = (await g.h.json("POST", "/v1/sources/sets", { ...session(g), body: { name: "s", sources: [{ url: "https://example.org", label: "e", kind: "web" }] } })).body;
    const o = await originalCall(g, chatBody("use the context", { svc_context: docs, svc_source_set: set.id }));

    const wrongDocs = await seal(g, { receipt_id: o.receiptId, confirm_seal: true, request: { ...o.body, svc_context: ["context one", "context 2"] }, output: o.text });
    expect(wrongDocs.body.error).toMatchObject({ type: "receipt_mismatch", mismatched: ["request.svc_context"] });
    const noSet = await seal(g, { receipt_id: o.receiptId, confirm_seal: true, request: { ...o.body, svc_source_set: undefined }, output: o.text });
    expect(noSet.body.error).toMatchObject({ type: "receipt_mismatch", mismatched: ["request.svc_source_set"] });

    const ok = await capsuleOf(g, o);
    const receipt = (await g.h.json("GET", `/v1/receipts/${o.receiptId}`, session(g))).body.payload;
    expect(ok.context_merkle_root).toBe(receipt.attestations.context.merkle_root);
    expect(ok.source_set).toEqual({ id: set.id, fingerprint: set.fingerprint });
  });

  test("calls a capsule cannot replay are refused 422 not_replayable", async () => {
    const g = await startGateway();
    const messages = await originalCall(g, { model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }, "/v1/messages");
    const scrubbed = await originalCall(g, chatBody("my key is sk-live-abcdefghijklmnopqrstuvwx", { svc_scrub: true }));
    for (const [o, reason] of [
      [messages, "messages API"],
      [scrubbed, "scrubbed"],
    ] as const) {
      // Refused on the receipt alone, before the request is compared with it.
      const r = await seal(g, { receipt_id: o.receiptId, confirm_seal: true, request: chatBody("x"), output: o.text });
      expect(r.status).toBe(422);
      expect(r.body.error).toMatchObject({ type: "not_replayable", param: "receipt_id" });
      expect(r.body.error.message).toContain(reason);
    }
  });

  test("bad input and unknown fields are refused 400 naming the field", async () => {
    const g = await startGateway();
    const o = await originalCall(g, chatBody("hello"));
    const good = { receipt_id: o.receiptId, confirm_seal: true, request: o.body, output: o.text };
    const cases: [unknown, string][] = [
      [{ ...good, extra: 1 }, "extra"],
      [{ ...good, request: { ...o.body, top_p: 0.5 } }, "request.top_p"],
      [{ ...good, request: { ...o.body, messages: [{ role: "user", content: "x", name: "bob" }] } }, "request.messages.0.name"],
      [{ ...good, request: { ...o.body, response_format: { type: "json_object", schema: {} } } }, "request.response_format.schema"],
      [{ ...good, receipt_id: undefined }, "receipt_id"],
      [{ ...good, run_id: "r" }, "receipt_id"],
      [{ ...good, output: undefined }, "output"],
      [{ ...good, output_sha256: sha256("x") }, "output"],
      [{ ...good, output: undefined, output_sha256: "ABC" }, "output_sha256"],
      [{ ...good, request: undefined }, "request"],
      [{ ...good, request: { ...o.body, messages: [] } }, "request.messages"],
      [{ ...good, request: { ...o.body, messages: [{ role: "tool", content: "x" }] } }, "request.messages.0.role"],
      [{ ...good, request: { ...o.body, messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] } }, "request.messages.0.content"],
      [{ ...good, request: { ...o.body, temperature: 3 } }, "request.temperature"],
      [{ ...good, request: { ...o.body, max_tokens: 0 } }, "request.max_tokens"],
      [{ ...good, confirm_seal: "yes" }, "confirm_seal"],
    ];
    for (const [body, param] of cases) {
      const r = await seal(g, body);
      expect([param, r.status, r.body.error?.param]).toEqual([param, 400, param]);
    }
    expect((await g.h.json("GET", "/v1/replay/capsules", session(g))).body.capsules).toEqual([]);
  });
});

describe("destroying and tenancy", () => {
  test("DELETE destroys the sealed request and keeps the row; a replay after it is refused 409 and bills nothing", async () => {
    const g = await startGateway();
    const o = await originalCall(g, chatBody("hello"));
    const capsule = await capsuleOf(g, o);
    await replay(g, capsule.id);

    g.h.clock.advance(5_000);
    const del = await g.h.json("DELETE", `/v1/replay/capsules/${capsule.id}`, session(g));
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: capsule.id, sealed: false, destroyed_at: new Date(g.h.clock.now()).toISOString(), replay_count: 1, output_sha256: capsule.output_sha256 });
    expect(g.h.ctx.db.query<any, [string]>("SELECT sealed FROM replay_capsules WHERE id = ?").get(capsule.id).sealed).toBeNull();

    const sent = g.stub.requests.length;
    const billed = usageEvents(g).length;
    const r = await replay(g, capsule.id);
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe("capsule_destroyed");
    expect(r.body.error.message).toContain("destroyed");
    expect(g.stub.requests.length).toBe(sent);
    expect(usageEvents(g).length).toBe(billed);

    g.h.clock.advance(5_000);
    const again = await g.h.json("DELETE", `/v1/replay/capsules/${capsule.id}`, session(g));
    expect(again.body.destroyed_at).toBe(del.body.destroyed_at);
    expect((await g.h.json("GET", `/v1/replay/capsules/${capsule.id}`, session(g))).body).toEqual(again.body);
  });

  test("another account's capsule and receipt answer 404 exactly like unknown ones", async () => {
    const g = await startGateway();
    const o = await originalCall(g, chatBody("hello", { svc_run_id: "run-tenant" }));
    const capsule = await capsuleOf(g, o);
    const other = accountWithSession(g.h.ctx);
    g.h.ctx.ledger.credit(other.account.id, 10 * USD, { type: "deposit" });
    const theirs = other.session.token;

    for (const [method, suffix] of [
      ["GET", ""],
      ["DELETE", ""],
      ["POST", "/replay"],
    ] as const) {
      const unknown = await g.h.json(method, `/v1/replay/capsules/rcap_doesnotexist${suffix}`, session(g, theirs));
      const foreign = await g.h.json(method, `/v1/replay/capsules/${capsule.id}${suffix}`, session(g, theirs));
      expect([method, foreign.status]).toEqual([method, 404]);
      expect(foreign.body).toEqual(unknown.body);
    }
    expect((await g.h.json("GET", "/v1/replay/capsules", session(g, theirs))).body.capsules).toEqual([]);

    const byReceipt = await seal(g, { receipt_id: o.receiptId, confirm_seal: true, request: o.body, output: o.text }, theirs);
    const unknownReceipt = await seal(g, { receipt_id: "rcpt_doesnotexist", confirm_seal: true, request: o.body, output: o.text }, theirs);
    expect(byReceipt.status).toBe(404);
    expect(byReceipt.body).toEqual(unknownReceipt.body);
    expect((await seal(g, { run_id: "run-tenant", confirm_seal: true, request: o.body, output: o.text }, theirs)).status).toBe(404);
    // The owner's capsule is untouched.
    expect((await g.h.json("GET", `/v1/replay/capsules/${capsule.id}`, session(g))).body.sealed).toBe(true);
  });

  test("the routes take a session, not an API key", async () => {
    const g = await startGateway();
    expect((await g.h.json("GET", "/v1/replay/capsules", { headers: bearer(g.key) })).status).toBe(401);
  });
});

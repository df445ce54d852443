/**
 * `engine/<slug>` as a model name, through the official SDKs against a real server: the call
 * runs on the pinned upstream model with the build's system prompt first and its parameters
 * applied, and the receipt (verified with viem) names the engine and the model used. Pins,
 * unpublished and unknown slugs, another tenant, and what the public catalogue lists.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { engineFor } from "../../../src/domains/engine/index.ts";
import { clearModelRoute, completeChat, setModelRoute } from "../../../src/domains/inference/index.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { type Gateway, receiptEventOf, receiptFromHeaders, startGateway, usageEvents, verifyReceipt } from "../inference/inference-support.ts";
import { createBuild, publish, spec, specSha256, unpublish } from "./engine-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());

const PROMPT = "ENGINE-PROMPT: answer as the acme support engine.";

/** Creates and publishes a build for the test account; returns its view. */
async function published(slug: string, over: Record<string, unknown> = {}, token = g.sessionToken) {
  const made = await createBuild(g.h, token, { slug, spec: spec({ system_prompt: PROMPT, ...over }) });
  expect(made.status).toBe(201);
  const r = await publish(g.h, token, made.body.id);
  expect(r.status).toBe(200);
  return r.body;
}

describe("chat completions through engine/<slug>", () => {
  test("the pinned model, the system prompt first, the spec's parameters over the request's; the receipt names the engine", async () => {
    const build = await published("support", { parameters: { temperature_milli: 300, top_p_milli: 900, max_tokens: 50 } });
    g.stub.clear();
    const { data, response } = await g.openai.chat.completions
      .create({ model: "engine/support", messages: [{ role: "user", content: "Where is my order" }], temperature: 1.5, max_completion_tokens: 400 })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("reply to: Where is my order");

    const sent = g.stub.last("/v1/chat/completions")!.body;
    expect(sent.model).toBe("stub-gpt");
    expect(sent.messages).toEqual([
      { role: "system", content: PROMPT },
      { role: "user", content: "Where is my order" },
    ]);
    expect(sent.temperature).toBe(0.3);
    expect(sent.top_p).toBe(0.9);
    expect(sent.max_tokens).toBe(50);
    expect(sent.max_completion_tokens).toBeUndefined();

    const receipt = await receiptFromHeaders(g, response.headers);
    expect(receipt.resource).toBe("gpt-test");
    expect(receipt.attestations.engine).toEqual({ slug: "support", build_id: build.id, version: 1, spec_sha256: build.spec_sha256, model: "gpt-test" });
    // The fingerprint on the receipt is the spec's, recomputed here from the spec GET shows.
    const shown = await g.h.json("GET", `/v1/engine/builds/${build.id}`, { headers: { authorization: `Bearer ${g.sessionToken}` } });
    expect(specSha256(shown.body.spec)).toBe(receipt.attestations.engine.spec_sha256);
    // Metadata only: the system prompt is not on the receipt.
    expect(JSON.stringify(receipt)).not.toContain("ENGINE-PROMPT");
    expect(usageEvents(g).at(-1)!.resource).toBe("gpt-test");
  });

  test("settings the spec leaves out are the request's", async () => {
    await published("loose", { parameters: {} });
    g.stub.clear();
    await g.openai.chat.completions.create({ model: "engine/loose", messages: [{ role: "user", content: "hi" }], temperature: 1.2, max_tokens: 30 });
    const sent = g.stub.last("/v1/chat/completions")!.body;
    expect(sent).toMatchObject({ model: "stub-gpt", temperature: 1.2, max_tokens: 30 });
    expect(sent.messages[0]).toEqual({ role: "system", content: PROMPT });
  });

  test("streamed: the stream's receipt names the engine too", async () => {
    const build = await published("streamer");
    const res = await g.post("/v1/chat/completions", { model: "engine/streamer", messages: [{ role: "user", content: "stream it" }], stream: true });
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(g.stub.last("/v1/chat/completions")!.body.messages[0]).toEqual({ role: "system", content: PROMPT });
    const event = receiptEventOf(raw);
    const payload = await verifyReceipt(g, event.receipt, event.signature);
    expect(payload.resource).toBe("gpt-test");
    expect(payload.attestations.engine).toMatchObject({ slug: "streamer", build_id: build.id, spec_sha256: build.spec_sha256 });
  });

  test("an engine pinned to an Anthropic-kind model: chat translated, the prompt in Messages' system", async () => {
    const build = await published("claude-eng", { model: "claude-test" });
    g.stub.clear();
    const { response } = await g.openai.chat.completions.create({ model: "engine/claude-eng", messages: [{ role: "user", content: "hello there" }] }).withResponse();
    const sent = g.stub.last("/v1/messages")!.body;
    expect(sent.model).toBe("stub-claude");
    expect(JSON.stringify(sent.system)).toContain(PROMPT);
    expect(sent.temperature).toBe(0.3);
    expect(sent.max_tokens).toBe(50);
    const receipt = await receiptFromHeaders(g, response.headers);
    expect(receipt.resource).toBe("claude-test");
    expect(receipt.attestations.engine.build_id).toBe(build.id);
  });

  test("an engine's model is pinned: the account's model routes do not move it", async () => {
    await published("pinned");
    setModelRoute(g.h.ctx, g.accountId, "gpt-test", "claude-test");
    try {
      g.stub.clear();
      const { response } = await g.openai.chat.completions.create({ model: "engine/pinned", messages: [{ role: "user", content: "hi" }] }).withResponse();
      expect(g.stub.last()!.path).toBe("/v1/chat/completions");
      const receipt = await receiptFromHeaders(g, response.headers);
      expect(receipt.resource).toBe("gpt-test");
      expect(receipt.attestations.routing.routed_from).toBeUndefined();
    } finally {
      clearModelRoute(g.h.ctx, g.accountId, "gpt-test");
    }
  });
});

describe("the other APIs", () => {
  test("messages (Anthropic SDK): the build's prompt ahead of the request's own system", async () => {
    const build = await published("msg-eng", { model: "claude-test" });
    g.stub.clear();
    const { response } = await g.anthropic.messages
      .create({ model: "engine/msg-eng", max_tokens: 500, system: "Caller's own system.", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    const sent = g.stub.last("/v1/messages")!.body;
    expect(sent.model).toBe("stub-claude");
    expect(sent.system).toBe(`${PROMPT}\n\nCaller's own system.`);
    expect(sent.max_tokens).toBe(50);
    const receipt = await receiptFromHeaders(g, response.headers);
    expect(receipt.attestations.engine).toMatchObject({ slug: "msg-eng", build_id: build.id, model: "claude-test" });

    // A system given as text blocks: the build's prompt is the first block.
    await g.anthropic.messages.create({ model: "engine/msg-eng", max_tokens: 500, system: [{ type: "text", text: "Block system." }], messages: [{ role: "user", content: "hello" }] });
    expect(g.stub.last("/v1/messages")!.body.system).toEqual([
      { type: "text", text: PROMPT },
      { type: "text", text: "Block system." },
    ]);
  });

  test("responses: the build's prompt ahead of the request's instructions; max_tokens as max_output_tokens", async () => {
    await published("resp-eng");
    g.stub.clear();
    await g.openai.responses.create({ model: "engine/resp-eng", input: "hello", instructions: "Caller's instructions." });
    const sent = g.stub.last("/v1/responses")!.body;
    expect(sent.model).toBe("stub-gpt");
    expect(sent.instructions).toBe(`${PROMPT}\n\nCaller's instructions.`);
    expect(sent.max_output_tokens).toBe(50);
  });

  test("embeddings refuse an engine (400 naming model)", async () => {
    await published("embedder");
    const r = await g.post("/v1/embeddings", { model: "engine/embedder", input: "hello" });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.param).toBe("model");
  });
});

describe("what resolves", () => {
  async function notFound(model: string, openai: OpenAI = g.openai) {
    const before = usageEvents(g).length;
    g.stub.clear();
    const err = await openai.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(g.stub.requests.length).toBe(0);
    expect(usageEvents(g).length).toBe(before);
    return (err as InstanceType<typeof OpenAI.NotFoundError>).error as any;
  }

  test("pins: engine/<slug>@<version> reaches that version only while it is the published one; unpublished, nothing resolves", async () => {
    const v1 = await published("pins");
    g.stub.clear();
    await g.openai.chat.completions.create({ model: "engine/pins@1", messages: [{ role: "user", content: "hi" }] });
    expect(g.stub.last()!.body.messages[0].content).toBe(PROMPT);

    const v2 = (await createBuild(g.h, g.sessionToken, { slug: "pins", spec: spec({ system_prompt: "Version two." }) })).body;
    expect((await unpublish(g.h, g.sessionToken, v1.id)).status).toBe(200);
    // Between the two: the slug and the pin are unknown models.
    expect(await notFound("engine/pins")).toMatchObject({ type: "model_not_found", param: "model" });
    await notFound("engine/pins@1");

    expect((await publish(g.h, g.sessionToken, v2.id)).status).toBe(200);
    g.stub.clear();
    const { response } = await g.openai.chat.completions.create({ model: "engine/pins", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(g.stub.last()!.body.messages[0].content).toBe("Version two.");
    expect((await receiptFromHeaders(g, response.headers)).attestations.engine).toMatchObject({ version: 2, build_id: v2.id });
    await g.openai.chat.completions.create({ model: "engine/pins@2", messages: [{ role: "user", content: "hi" }] });
    // The retired version's pin stays dead.
    await notFound("engine/pins@1");
  });

  test("a draft, an unknown slug and another account's engine all answer 404 model_not_found, identically, billing nothing", async () => {
    await createBuild(g.h, g.sessionToken, { slug: "only-draft", spec: spec() });
    const draft = await notFound("engine/only-draft");
    const unknown = await notFound("engine/no-such-engine");
    expect(draft).toMatchObject({ type: "model_not_found", param: "model" });
    expect(unknown.type).toBe("model_not_found");

    await published("mine");
    const other = accountWithSession(g.h.ctx);
    g.h.ctx.ledger.credit(other.account.id, 1_000_000, { type: "deposit" });
    const stranger = g.clientsFor(apiKeyFor(g.h.ctx, other.account.id).token).openai;
    const theirs = await notFound("engine/mine", stranger);
    const none = await notFound("engine/never-made", stranger);
    expect(theirs).toEqual({ ...none, message: none.message.replace("engine/never-made", "engine/mine") });
  });

  test("another area's metered call (completeChat, keyless) runs an engine too; engineFor checks a name for an account", async () => {
    const build = await published("for-areas");
    g.stub.clear();
    const answer = await completeChat(g.h.ctx, { caller: { accountId: g.accountId, keyId: null }, model: "engine/for-areas", messages: [{ role: "user", content: "hi" }] });
    expect(g.stub.last()!.body.messages[0]).toEqual({ role: "system", content: PROMPT });
    const row = g.h.ctx.db.query<{ receipt: string; signature: string }, [string]>("SELECT receipt, signature FROM receipts WHERE id = ?").get(answer.settlement.receipt!.id)!;
    expect((await verifyReceipt(g, row.receipt, row.signature)).attestations.engine.build_id).toBe(build.id);

    expect(engineFor(g.h.ctx, g.accountId, "engine/for-areas")).toEqual({ slug: "for-areas", build_id: build.id, version: 1, spec_sha256: build.spec_sha256, model: "gpt-test" });
    expect(engineFor(g.h.ctx, g.accountId, "engine/for-areas@2")).toBeNull();
    expect(engineFor(g.h.ctx, g.accountId, "gpt-test")).toBeNull();
    expect(engineFor(g.h.ctx, accountWithSession(g.h.ctx).account.id, "engine/for-areas")).toBeNull();
  });

  test("GET /v1/models (the public catalogue) lists no engines", async () => {
    await published("listed-not");
    const r = await g.h.json("GET", "/v1/models");
    expect(r.status).toBe(200);
    expect(r.body.data.map((m: any) => m.id).filter((id: string) => id.startsWith("engine/"))).toEqual([]);
  });
});

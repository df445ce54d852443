/**
 * The four inference routes driven by the OFFICIAL `openai` and `@anthropic-ai/sdk` clients over
 * real HTTP, with the local upstream stub as provider: non-streaming, streaming, tools, images,
 * response_format, embeddings, Responses, both translation directions (OpenAI client → Anthropic
 * provider, Anthropic client → OpenAI provider) and the same-shape passthrough. Every receipt —
 * response headers or the stream's svc.receipt event — is verified with viem, and each SDK is
 * shown to read a stream that carries the svc.receipt event.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { costAt, type Gateway, PRICES, receiptEventOf, receiptFromHeaders, sseEvents, startGateway, UPSTREAM_KEY, usageEvents, verifyReceipt } from "./inference-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());

const weatherTool = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};
const anthropicTool = { name: "get_weather", description: "Weather for a city", input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] } };
/** A 1×1 PNG. */
const PNG = "iVBORw0KGGoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const lastUpstream = (path: string) => g.stub.last(path)!;

describe("OpenAI client → openai-kind provider (passthrough)", () => {
  test("non-streaming: the reply as the upstream wrote it, model renamed upstream, unknown fields passed, svc_ fields stripped, receipt headers verify", async () => {
    const { data, response } = await g.openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "Hello there gateway" }], seed: 7, custom_vendor_field: { a: 1 }, svc_run_id: "run-sdk" } as never)
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("reply to: Hello there gateway");
    const sent = lastUpstream("/v1/chat/completions");
    expect(sent.body.model).toBe("stub-gpt");
    expect(sent.body.seed).toBe(7);
    expect(sent.body.custom_vendor_field).toEqual({ a: 1 });
    expect(Object.keys(sent.body).filter((k) => k.startsWith("svc_"))).toEqual([]);
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`); // svc's key upstream, never the client's
    const payload = await receiptFromHeaders(g, response.headers);
    expect(payload).toMatchObject({ kind: "inference", status: "succeeded", resource: "gpt-test", run_id: "run-sdk", key_id: g.keyId });
    expect(payload.units).toMatchObject({ input_tokens: data.usage!.prompt_tokens, output_tokens: data.usage!.completion_tokens, api: "chat", stream: false });
    expect(payload.attestations.routing).toEqual({ provider: "oa", privacy_tier: "standard" });
    expect(payload.cost_micro_usd).toBe(costAt(data.usage!.prompt_tokens, data.usage!.completion_tokens));
    expect(response.headers.get("x-svc-cost-micro-usd")).toBe(String(payload.cost_micro_usd));
    expect(response.headers.get("x-svc-run-id")).toBe("run-sdk");
  });

  test("streaming: the SDK reads every chunk; usage asked upstream but not shown; the svc.receipt comment, then [DONE]; the receipt verifies", async () => {
    const stream = await g.openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Count the stars tonight" }], stream: true });
    let text = "";
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe("reply to: Count the stars tonight");
    expect(sawUsage).toBe(false);
    expect(lastUpstream("/v1/chat/completions").body.stream_options).toEqual({ include_usage: true });

    const raw = await (await g.post("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "Count the stars tonight" }], stream: true })).text();
    const events = sseEvents(raw);
    expect(events.at(-1)!.data).toBe("[DONE]");
    expect(events.at(-2)!.comment).toStartWith("svc.receipt {");
    expect(events.filter((e) => e.data.includes('"usage":{'))).toEqual([]); // the usage-only chunk was dropped
    const receipt = receiptEventOf(raw);
    const payload = await verifyReceipt(g, receipt.receipt, receipt.signature);
    expect(payload.units).toMatchObject({ output_tokens: encode(text).length, stream: true });
    expect(receipt.cost_micro_usd).toBe(payload.cost_micro_usd);
  });

  test("streaming with include_usage: the SDK sees the usage chunk, and it is what was billed", async () => {
    const stream = await g.openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "usage please" }], stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    const billed = usageEvents(g).at(-1)!;
    expect(billed.units.output_tokens).toBe(usage!.completion_tokens);
    expect(billed.cost_micro_usd).toBe(costAt(usage!.prompt_tokens, usage!.completion_tokens));
  });

  test("tools (plain and with the SDK's stream helper), response_format json_schema, images", async () => {
    const called = await g.openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "use the tool for Paris" }], tools: [weatherTool] });
    expect(called.choices[0]!.finish_reason).toBe("tool_calls");
    expect(JSON.parse((called.choices[0]!.message.tool_calls![0] as any).function.arguments)).toEqual({ city: "stub" });

    const final = await g.openai.chat.completions.stream({ model: "gpt-test", messages: [{ role: "user", content: "weather" }], tools: [weatherTool], tool_choice: "required" }).finalChatCompletion();
    expect((final.choices[0]!.message.tool_calls![0] as any).function.name).toBe("get_weather");

    const json = await g.openai.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "json please" }],
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object", properties: { answer: { type: "string" } } } } },
    });
    expect(Object.keys(JSON.parse(json.choices[0]!.message.content!))).toEqual(["answer"]);

    const image = await g.openai.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: [{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] }],
    });
    expect(image.choices[0]!.message.content).toBe("reply to: what is this [images: 1]");
  });

  test("embeddings: vectors and usage through the SDK; billed at the input price; receipt headers verify", async () => {
    const { data, response } = await g.openai.embeddings.create({ model: "embed-test", input: ["alpha beta", "gamma"], encoding_format: "float" }).withResponse();
    expect(data.data).toHaveLength(2);
    expect(data.data[0]!.embedding).toHaveLength(8);
    expect(lastUpstream("/v1/embeddings").body.model).toBe("stub-embed");
    const payload = await receiptFromHeaders(g, response.headers);
    expect(payload.units).toMatchObject({ input_tokens: data.usage.prompt_tokens, output_tokens: 0, api: "embeddings" });
    expect(payload.cost_micro_usd).toBe(Math.ceil((data.usage.prompt_tokens * PRICES.embed) / 1_000_000));
    // base64, the SDK's default, decodes too
    expect((await g.openai.embeddings.create({ model: "embed-test", input: "x" })).data[0]!.embedding).toHaveLength(8);
  });
});

describe("OpenAI client → anthropic-kind provider (translated)", () => {
  test("non-streaming: a Chat Completion of the Anthropic reply; usage converted; the upstream got a Messages body", async () => {
    const { data, response } = await g.openai.chat.completions
      .create({ model: "claude-test", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello Claude friend" }], max_tokens: 50 })
      .withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("claude-test");
    expect(data.choices[0]!.message.content).toBe("reply to: Hello Claude friend");
    const sent = lastUpstream("/v1/messages");
    expect(sent.body).toMatchObject({ model: "stub-claude", system: "Be brief.", max_tokens: 50 });
    expect(sent.headers["x-api-key"]).toBe(UPSTREAM_KEY);
    const payload = await receiptFromHeaders(g, response.headers);
    expect(payload.units).toMatchObject({ input_tokens: data.usage!.prompt_tokens, output_tokens: data.usage!.completion_tokens });
    expect(payload.attestations.routing.provider).toBe("an");
  });

  test("streaming with include_usage, and tools through the stream helper", async () => {
    const stream = await g.openai.chat.completions.create({ model: "claude-test", messages: [{ role: "user", content: "Stream me something" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("reply to: Stream me something");
    expect(usage!.completion_tokens).toBe(encode(text).length);

    const final = await g.openai.chat.completions.stream({ model: "claude-test", messages: [{ role: "user", content: "use the tool" }], tools: [weatherTool] }).finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(JSON.parse((final.choices[0]!.message.tool_calls![0] as any).function.arguments)).toEqual({ city: "stub" });
  });

  test("images reach the Anthropic upstream as image blocks", async () => {
    const res = await g.openai.chat.completions.create({
      model: "claude-test",
      messages: [{ role: "user", content: [{ type: "text", text: "describe" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] }],
    });
    expect(res.choices[0]!.message.content).toBe("reply to: describe [images: 1]");
    expect(lastUpstream("/v1/messages").body.messages[0].content[1]).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/png" } });
  });
});

describe("Anthropic client → anthropic-kind provider (passthrough)", () => {
  test("non-streaming: as the upstream wrote it; the SDK's Bearer key is accepted; svc's own key goes upstream", async () => {
    const { data, response } = await g.anthropic.messages.create({ model: "claude-test", max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "Hello from Anthropic SDK" }] }).withResponse();
    expect(data.content[0]).toMatchObject({ type: "text", text: "reply to: Hello from Anthropic SDK" });
    expect(data.model).toBe("stub-claude");
    const sent = lastUpstream("/v1/messages");
    expect(sent.body.model).toBe("stub-claude");
    expect(sent.headers["x-api-key"]).toBe(UPSTREAM_KEY);
    expect(sent.headers.authorization).toBeUndefined();
    const payload = await receiptFromHeaders(g, response.headers);
    expect(payload.units).toMatchObject({ input_tokens: data.usage.input_tokens, output_tokens: data.usage.output_tokens, api: "messages" });
  });

  test("streaming with the SDK's stream helper: the event sequence, the final message, and the svc.receipt comment it ignores", async () => {
    const message = await g.anthropic.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "Stream it please" }], tools: [anthropicTool] }).finalMessage();
    expect(message.content[0]).toMatchObject({ type: "text", text: "reply to: Stream it please" });
    expect(message.stop_reason).toBe("end_turn");

    const raw = await (await g.post("/v1/messages", { model: "claude-test", max_tokens: 100, stream: true, messages: [{ role: "user", content: "use the tool" }], tools: [anthropicTool] })).text();
    const events = sseEvents(raw);
    expect(events.slice(-3).map((e) => e.event)).toEqual(["message_delta", "message_stop", null]);
    expect(events.at(-1)!.comment).toStartWith("svc.receipt {");
    const receipt = receiptEventOf(raw);
    const payload = await verifyReceipt(g, receipt.receipt, receipt.signature);
    expect(payload.units.stream).toBe(true);
  });

  test("x-api-key authentication, any anthropic-version, anthropic-beta passed on", async () => {
    const res = await fetch(`${g.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": g.key, "anthropic-version": "2099-01-01", "anthropic-beta": "some-beta-2025", "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(lastUpstream("/v1/messages").headers["anthropic-beta"]).toBe("some-beta-2025");
    const wrong = await fetch(`${g.url}/v1/messages`, { method: "POST", headers: { "x-api-key": "sk-svc_nope", "content-type": "application/json" }, body: "{}" });
    expect(wrong.status).toBe(401);
    // x-api-key is an Anthropic-route convenience only
    const elsewhere = await fetch(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "x-api-key": g.key, "content-type": "application/json" }, body: "{}" });
    expect(elsewhere.status).toBe(401);
  });
});

describe("Anthropic client → openai-kind provider (translated)", () => {
  test("non-streaming and tools: Anthropic Messages from Chat replies", async () => {
    const msg = await g.anthropic.messages.create({ model: "gpt-test", max_tokens: 80, system: "Be terse.", messages: [{ role: "user", content: "Translate me please" }] });
    expect(msg.type).toBe("message");
    expect(msg.model).toBe("gpt-test");
    expect(msg.content[0]).toMatchObject({ type: "text", text: "reply to: Translate me please" });
    const sent = lastUpstream("/v1/chat/completions");
    expect(sent.body.messages[0]).toEqual({ role: "system", content: "Be terse." });
    expect(sent.body.model).toBe("stub-gpt");

    const tool = await g.anthropic.messages.create({ model: "gpt-test", max_tokens: 80, tools: [anthropicTool], messages: [{ role: "user", content: "use the tool" }] });
    expect(tool.stop_reason).toBe("tool_use");
    expect(tool.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "get_weather", input: { city: "stub" } });
  });

  test("streaming: the SDK assembles the translated event sequence; usage from the upstream's last chunk", async () => {
    const stream = g.anthropic.messages.stream({ model: "gpt-test", max_tokens: 80, messages: [{ role: "user", content: "Stream translated words" }] });
    const msg = await stream.finalMessage();
    expect(msg.content[0]).toMatchObject({ type: "text", text: "reply to: Stream translated words" });
    expect(msg.usage.output_tokens).toBe(encode("reply to: Stream translated words").length);
    expect(lastUpstream("/v1/chat/completions").body.stream_options).toEqual({ include_usage: true });
    const tooled = await g.anthropic.messages.stream({ model: "gpt-test", max_tokens: 80, tools: [anthropicTool], tool_choice: { type: "any" }, messages: [{ role: "user", content: "x" }] }).finalMessage();
    expect(tooled.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "get_weather", input: { city: "stub" } });
  });
});

describe("Responses", () => {
  test("passthrough to an upstream with /responses; translated for a Chat-only upstream and for Anthropic", async () => {
    for (const model of ["gpt-test", "gpt-chat-only", "claude-test"]) {
      const { data, response } = await g.openai.responses.create({ model, input: "Tell me a story", instructions: "Be kind" }).withResponse();
      expect(data.output_text).toBe("reply to: Tell me a story");
      const payload = await receiptFromHeaders(g, response.headers);
      expect(payload.units).toMatchObject({ api: "responses", input_tokens: data.usage!.input_tokens, output_tokens: data.usage!.output_tokens });
    }
    expect(g.stub.requests.slice(-3).map((r) => r.path)).toEqual(["/v1/responses", "/v1/chat/completions", "/v1/messages"]);
  });

  test("streaming through the SDK's ResponseStream helper and plain iteration: the svc.receipt comment is invisible to both, and verifies", async () => {
    for (const model of ["gpt-test", "gpt-chat-only", "claude-test"]) {
      const final = await g.openai.responses.stream({ model, input: [{ role: "user", content: "Stream a story" }] }).finalResponse();
      expect(final.output_text).toBe("reply to: Stream a story");
      expect(final.status).toBe("completed");
    }
    const stream = await g.openai.responses.create({ model: "claude-test", input: "iterate", stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe("response.completed");

    const raw = await (await g.post("/v1/responses", { model: "gpt-test", input: "raw", stream: true })).text();
    const events = sseEvents(raw);
    expect(events.at(-2)!.event).toBe("response.completed");
    const receipt = receiptEventOf(raw);
    expect((await verifyReceipt(g, receipt.receipt, receipt.signature)).units.api).toBe("responses");
  });

  test("tools through the translation", async () => {
    const res = await g.openai.responses.create({
      model: "claude-test",
      input: "use the tool",
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }],
    });
    const call = res.output.find((o) => o.type === "function_call");
    expect(call).toMatchObject({ name: "get_weather" });
  });

  test("previous_response_id is refused with a clear 400 before anything is reserved or sent", async () => {
    const before = g.stub.requests.length;
    const err = await g.openai.responses.create({ model: "gpt-test", input: "again", previous_response_id: "resp_123" }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error).toMatchObject({ type: "invalid_request", param: "previous_response_id" });
    expect(err.message).toContain("keeps no conversation state");
    expect(g.stub.requests.length).toBe(before);
  });
});

describe("errors the SDKs understand", () => {
  test("an unknown model is 404 model_not_found; a chat model on /v1/embeddings is a 400 naming the field", async () => {
    const missing = await g.openai.chat.completions.create({ model: "no-such", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.error.type).toBe("model_not_found");
    const wrong = await g.openai.embeddings.create({ model: "gpt-test", input: "x" }).catch((e) => e);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect(wrong.error.param).toBe("model");
    const anthropicMissing = await g.anthropic.messages.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] } as never).catch((e) => e);
    expect(anthropicMissing).toBeInstanceOf(Anthropic.BadRequestError);
    expect(anthropicMissing.error.error.param).toBe("max_tokens");
  });

  test("bad input: no credential 401, not JSON 400, missing fields named, wrong types named; nothing sent upstream", async () => {
    const before = g.stub.requests.length;
    const noKey = await fetch(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(noKey.status).toBe(401);
    const notJson = await fetch(`${g.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${g.key}`, "content-type": "application/json" }, body: "{not json" });
    expect(notJson.status).toBe(400);
    const cases: [string, unknown, string][] = [
      ["/v1/chat/completions", { messages: [{ role: "user", content: "x" }] }, "model"],
      ["/v1/chat/completions", { model: "gpt-test" }, "messages"],
      ["/v1/chat/completions", { model: "gpt-test", messages: "hello" }, "messages"],
      ["/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "x" }], max_tokens: -5 }, "max_tokens"],
      ["/v1/messages", { model: "claude-test", messages: [{ role: "user", content: "x" }], max_tokens: "10" }, "max_tokens"],
      ["/v1/responses", { model: "gpt-test" }, "input"],
      ["/v1/embeddings", { model: "embed-test" }, "input"],
      ["/v1/embeddings", { model: "embed-test", input: "x", stream: true }, "stream"],
      ["/v1/chat/completions", { model: "claude-test", messages: [{ role: "user", content: "x" }], n: 2 }, "n"],
    ];
    for (const [path, body, param] of cases) {
      const res = await g.post(path, body);
      const json = (await res.json()) as any;
      expect({ path, param, status: res.status }).toEqual({ path, param, status: 400 });
      expect(json.error.param).toBe(param);
    }
    expect(g.stub.requests.length).toBe(before);
    expect(g.h.ctx.ledger.balance(g.accountId).held_micro_usd).toBe(0);
  });

  test("an upstream that breaks off mid-stream reaches each SDK as an API error, and nothing is billed", async () => {
    const before = usageEvents(g).length;
    const held = () => g.h.ctx.ledger.balance(g.accountId).held_micro_usd;
    const chat = await g.openai.chat.completions.create({ model: "gpt-cut", messages: [{ role: "user", content: "a long enough prompt to stream" }], stream: true });
    let text = "";
    const chatErr = await (async () => {
      for await (const c of chat) text += c.choices[0]?.delta.content ?? "";
    })().catch((e) => e);
    expect(chatErr).toBeInstanceOf(OpenAI.APIError);
    expect(chatErr.message).toContain("broke off");
    expect(text.length).toBeGreaterThan(0); // some of it had arrived

    const anthErr = await g.anthropic.messages.stream({ model: "claude-cut", max_tokens: 50, messages: [{ role: "user", content: "a long enough prompt to stream" }] }).finalMessage().catch((e) => e);
    expect(anthErr).toBeInstanceOf(Anthropic.APIError);

    const respErr = await g.openai.responses.stream({ model: "gpt-cut", input: "a long enough prompt to stream" }).finalResponse().catch((e) => e);
    expect(respErr).toBeInstanceOf(Error);

    expect(usageEvents(g).length).toBe(before);
    expect(held()).toBe(0);
  });
});

/**
 * The upstream stub (test/support/upstream.ts) checked with the OFFICIAL clients, so tests of
 * the gateway can trust that what it speaks is what OpenAI's and Anthropic's SDKs speak:
 * non-streaming, streaming, tools, embeddings, Responses, errors and the behaviour switches.
 */
import { describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { startUpstream } from "../../support/upstream.ts";

const KEY = "sk-stub-test-key-0123456789";
const stub = startUpstream({ apiKey: KEY });
const openai = new OpenAI({ apiKey: KEY, baseURL: stub.openaiBaseUrl, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: KEY, baseURL: stub.anthropicBaseUrl, maxRetries: 0 });

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
  },
};

describe("OpenAI chat completions", () => {
  test("non-streaming: deterministic echo, real usage, recorded request", async () => {
    const res = await openai.chat.completions.create({ model: "stub-model", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello there, how are you today?" }], custom_field: 1 } as never);
    expect(res.object).toBe("chat.completion");
    expect(res.choices[0]!.message.content).toBe("reply to: Hello there, how are you today?");
    expect(res.choices[0]!.finish_reason).toBe("stop");
    expect(res.usage!.completion_tokens).toBe(encode("reply to: Hello there, how are you today?").length);
    expect(res.usage!.prompt_tokens).toBe(3 + (3 + encode("Be brief.").length) + (3 + encode("Hello there, how are you today?").length));
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    const seen = stub.last("/v1/chat/completions")!;
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.body.custom_field).toBe(1);
    expect(seen.completed).toBe(true);
  });

  test("streaming with include_usage: role chunk, one token per delta, finish, usage chunk, [DONE]", async () => {
    const stream = await openai.chat.completions.create({ model: "stub-model", messages: [{ role: "user", content: "Count the stars" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let deltas = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) {
        text += chunk.choices[0].delta.content;
        deltas++;
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("reply to: Count the stars");
    expect(deltas).toBe(encode(text).length);
    expect(finish).toBe("stop");
    expect(usage!.completion_tokens).toBe(deltas);
    // Raw wire: the last frames are the usage chunk (choices: []) and [DONE].
    const raw = await (await fetch(`${stub.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } }),
    })).text();
    const frames = raw.trim().split("\n\n");
    expect(frames.at(-1)).toBe("data: [DONE]");
    expect(JSON.parse(frames.at(-2)!.slice(6))).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
  });

  test("without include_usage a stream carries no usage; max_tokens cuts with finish_reason length", async () => {
    const stream = await openai.chat.completions.create({ model: "stub-model", messages: [{ role: "user", content: "one two three four five six" }], stream: true, max_tokens: 3 });
    let text = "";
    let finish: string | null = null;
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) sawUsage = true;
    }
    expect(encode(text).length).toBe(3);
    expect(finish).toBe("length");
    expect(sawUsage).toBe(false);
  });

  test("tools: a tool call when asked, with arguments from the schema; a tool result gets a text answer", async () => {
    const res = await openai.chat.completions.create({ model: "stub-model", messages: [{ role: "user", content: "Please use the tool for Paris" }], tools: [weatherTool] });
    const call = res.choices[0]!.message.tool_calls![0]!;
    expect(res.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.type).toBe("function");
    if (call.type !== "function") throw new Error("expected a function call");
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "stub", days: 1 });

    const followUp = await openai.chat.completions.create({
      model: "stub-model",
      tools: [weatherTool],
      messages: [
        { role: "user", content: "Please use the tool for Paris" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "sunny and warm" },
      ],
    });
    expect(followUp.choices[0]!.message.content).toBe("reply to: sunny and warm");

    // Streamed: the SDK's helper assembles the call from its deltas.
    const runner = openai.chat.completions.stream({ model: "stub-model", messages: [{ role: "user", content: "use the tool" }], tools: [weatherTool], tool_choice: "required" });
    const final = await runner.finalChatCompletion();
    const streamed = final.choices[0]!.message.tool_calls![0]!;
    expect(streamed.type === "function" && JSON.parse(streamed.function.arguments)).toEqual({ city: "stub", days: 1 });
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  });

  test("response_format json_object and json_schema answer JSON; images are counted in the echo", async () => {
    const obj = await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "give json" }], response_format: { type: "json_object" } });
    expect(JSON.parse(obj.choices[0]!.message.content!)).toEqual({ reply: "reply to: give json" });
    const schema = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "give json" }],
      response_format: { type: "json_schema", json_schema: { name: "r", schema: { type: "object", properties: { ok: { type: "boolean" }, n: { type: "integer" } } } } },
    });
    expect(JSON.parse(schema.choices[0]!.message.content!)).toEqual({ ok: true, n: 1 });
    const image = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: [{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] }],
    });
    expect(image.choices[0]!.message.content).toBe("reply to: what is this [images: 1]");
  });

  test("a wrong key is a 401 the SDK raises as AuthenticationError", async () => {
    const wrong = new OpenAI({ apiKey: "sk-wrong", baseURL: stub.openaiBaseUrl, maxRetries: 0 });
    const err = await wrong.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe("OpenAI embeddings and Responses", () => {
  test("embeddings: the SDK's default base64 and explicit float decode to the same deterministic vectors", async () => {
    const viaBase64 = await openai.embeddings.create({ model: "embed", input: ["alpha", "beta gamma"] });
    const viaFloat = await openai.embeddings.create({ model: "embed", input: ["alpha", "beta gamma"], encoding_format: "float" });
    expect(stub.requests.at(-2)!.body.encoding_format).toBe("base64");
    expect(viaBase64.data).toHaveLength(2);
    expect(viaBase64.data[0]!.embedding).toHaveLength(8);
    for (const i of [0, 1]) viaBase64.data[i]!.embedding.forEach((v, j) => expect(v).toBeCloseTo(viaFloat.data[i]!.embedding[j]!, 5));
    expect(viaFloat.usage.prompt_tokens).toBe(encode("alpha").length + encode("beta gamma").length);
    expect((await openai.embeddings.create({ model: "embed", input: "x", dimensions: 16, encoding_format: "float" })).data[0]!.embedding).toHaveLength(16);
  });

  test("Responses: plain, streamed (the SDK assembles output_text), and function calls", async () => {
    const plain = await openai.responses.create({ model: "stub-model", input: "Tell me a story", instructions: "Be kind" });
    expect(plain.output_text).toBe("reply to: Tell me a story");
    expect(plain.usage!.output_tokens).toBe(encode("reply to: Tell me a story").length);

    const stream = openai.responses.stream({ model: "stub-model", input: [{ role: "user", content: "Stream a story" }] });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("reply to: Stream a story");
    expect(deltas.join("")).toBe("reply to: Stream a story");
    expect(final.usage!.total_tokens).toBe(final.usage!.input_tokens + final.usage!.output_tokens);

    const call = await openai.responses.create({
      model: "stub-model",
      input: "use the tool",
      tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } }, strict: false }],
    });
    expect(call.output[0]).toMatchObject({ type: "function_call", name: "lookup", arguments: '{"q":"stub"}' });
  });

  test("a stub started with responses: false answers 404 there", async () => {
    const plain = startUpstream({ responses: false });
    const client = new OpenAI({ apiKey: "k", baseURL: plain.openaiBaseUrl, maxRetries: 0 });
    const err = await client.responses.create({ model: "m", input: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    plain.stop();
  });
});

describe("Anthropic messages", () => {
  test("non-streaming: echo, usage, headers checked and recorded", async () => {
    const msg = await anthropic.messages.create({ model: "claude-stub", max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "Hello Claude, how are you?" }] });
    expect(msg.content).toEqual([{ type: "text", text: "reply to: Hello Claude, how are you?" } as never]);
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.usage.output_tokens).toBe(encode("reply to: Hello Claude, how are you?").length);
    expect(msg.usage.input_tokens).toBe(encode("Be brief.").length + 3 + encode("Hello Claude, how are you?").length);
    // @anthropic-ai/sdk 1.x authenticates with a Bearer token and names its own API version.
    const seen = stub.last("/v1/messages")!;
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const viaHeader = await fetch(`${stub.anthropicBaseUrl}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    });
    expect(viaHeader.status).toBe(200);
  });

  test("streaming: the exact event sequence, and the SDK's accumulated message equals the plain one", async () => {
    const params = { model: "claude-stub", max_tokens: 100, messages: [{ role: "user" as const, content: "Stream please" }] };
    const events: string[] = [];
    const stream = anthropic.messages.stream(params);
    stream.on("streamEvent", (e) => events.push(e.type));
    const final = await stream.finalMessage();
    const deltas = encode("reply to: Stream please").length;
    expect(events).toEqual(["message_start", "content_block_start", ...Array(deltas).fill("content_block_delta"), "content_block_stop", "message_delta", "message_stop"]);
    const plain = await anthropic.messages.create({ ...params, stream: false });
    expect(final.content as unknown).toEqual(plain.content);
    expect(final.usage.output_tokens).toBe(plain.usage.output_tokens);
    expect(final.stop_reason).toBe("end_turn");
  });

  test("tools: text then tool_use (plain and streamed), tool_result gets a text answer; stop reasons", async () => {
    const tools = [{ name: "get_weather", description: "Weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }];
    const msg = await anthropic.messages.create({ model: "claude-stub", max_tokens: 200, tools, messages: [{ role: "user", content: "use the tool for Rome" }] });
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content[1]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "stub" } });
    const streamed = await anthropic.messages.stream({ model: "claude-stub", max_tokens: 200, tools, tool_choice: { type: "any" }, messages: [{ role: "user", content: "weather?" }] }).finalMessage();
    expect(streamed.content[1]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "stub" } });
    const toolUse = msg.content[1] as Anthropic.ToolUseBlock;
    const after = await anthropic.messages.create({
      model: "claude-stub",
      max_tokens: 200,
      tools,
      messages: [
        { role: "user", content: "use the tool for Rome" },
        { role: "assistant", content: msg.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "cloudy" }] },
      ],
    });
    expect(after.content).toEqual([{ type: "text", text: "reply to: cloudy" } as never]);
    const capped = await anthropic.messages.create({ model: "claude-stub", max_tokens: 2, messages: [{ role: "user", content: "a b c d e f" }] });
    expect(capped.stop_reason).toBe("max_tokens");
    expect(capped.usage.output_tokens).toBe(2);
    const stopped = await anthropic.messages.create({ model: "claude-stub", max_tokens: 50, stop_sequences: ["c"], messages: [{ role: "user", content: "a b c d" }] });
    expect(stopped).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: "c", content: [{ text: "reply to: a b " }] });
  });

  test("a missing anthropic-version or a wrong key is refused as Anthropic does", async () => {
    const noVersion = await fetch(`${stub.anthropicBaseUrl}/v1/messages`, { method: "POST", headers: { "x-api-key": KEY, "content-type": "application/json" }, body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] }) });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const wrong = new Anthropic({ apiKey: "nope", baseURL: stub.anthropicBaseUrl, maxRetries: 0 });
    const err = await wrong.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
  });
});

describe("behaviours", () => {
  const chat = (model: string, headers: Record<string, string> = {}, extra: object = {}) =>
    fetch(`${stub.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hello world" }], ...extra }),
    });

  test("fail, rate_limit (with Retry-After), reject: by model suffix or header, in each API's error shape", async () => {
    const fail = await chat("m@fail");
    expect(fail.status).toBe(500);
    expect(await fail.json()).toMatchObject({ error: { type: "server_error" } });
    const limited = await chat("m", { "x-stub-behaviour": "rate_limit", "x-stub-retry-after": "3" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    const rejected = await chat("m@reject", { "x-stub-reject-message": "temperature too high" });
    expect(rejected.status).toBe(400);
    expect(await rejected.json()).toMatchObject({ error: { message: "temperature too high" } });
    expect(stub.last()!.behaviour).toBe("reject");
    expect(stub.last()!.body.model).toBe("m@reject");
    const anthropicFail = await anthropic.messages.create({ model: "c@fail", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(anthropicFail).toBeInstanceOf(Anthropic.InternalServerError);
  });

  test("slow waits before answering; hang never answers and records the client giving up", async () => {
    const t0 = performance.now();
    expect((await chat("m@slow", { "x-stub-delay-ms": "120" })).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(110);
    const before = stub.requests.length;
    const gaveUp = await fetch(`${stub.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m@hang", messages: [{ role: "user", content: "x" }] }),
      signal: AbortSignal.timeout(100),
    }).catch((e) => e);
    expect(gaveUp).toBeInstanceOf(Error);
    await Bun.sleep(20);
    expect(stub.requests.slice(before)).toMatchObject([{ behaviour: "hang", aborted: true, completed: false }]);
  });

  test("a client that leaves mid-stream is recorded as aborted, not completed", async () => {
    const before = stub.requests.length;
    const controller = new AbortController();
    const res = await fetch(`${stub.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "x-stub-chunk-delay-ms": "30" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "a b c d e f g h" }], stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await Bun.sleep(80);
    expect(stub.requests[before]).toMatchObject({ aborted: true, completed: false });
  });

  test("cut drops the connection mid-stream (and mid-body); bad_json sends what is not JSON", async () => {
    const stream = await openai.chat.completions.create({ model: "m@cut", messages: [{ role: "user", content: "a long enough prompt to stream" }], stream: true });
    const got: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) got.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((e) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(got.length).toBe(3);
    await expect((await chat("m@cut")).text()).rejects.toThrow();

    const bad = await chat("m@bad_json");
    expect(bad.status).toBe(200);
    const badText = await bad.text();
    expect(() => JSON.parse(badText)).toThrow();
    const badStream = await anthropic.messages.create({ model: "c@bad_json", max_tokens: 10, stream: true, messages: [{ role: "user", content: "x" }] });
    await expect((async () => { for await (const _ of badStream); })()).rejects.toThrow();
  });

  test("x-stub-output-tokens and x-stub-cached-tokens shape usage exactly", async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: stub.openaiBaseUrl, maxRetries: 0, defaultHeaders: { "x-stub-output-tokens": "40", "x-stub-cached-tokens": "5" } });
    const res = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "long one please" }] });
    expect(res.usage!.completion_tokens).toBe(40);
    expect(encode(res.choices[0]!.message.content!).length).toBe(40);
    expect(res.usage!.prompt_tokens_details!.cached_tokens).toBe(5);
    const claude = new Anthropic({ apiKey: KEY, baseURL: stub.anthropicBaseUrl, maxRetries: 0, defaultHeaders: { "x-stub-output-tokens": "12", "x-stub-cached-tokens": "4" } });
    const msg = await claude.messages.create({ model: "c", max_tokens: 100, messages: [{ role: "user", content: "hello there friend" }] });
    expect(msg.usage).toMatchObject({ output_tokens: 12, cache_read_input_tokens: 4 });
    expect(msg.usage.input_tokens + 4).toBe(3 + encode("hello there friend").length);
  });
});

/**
 * Streaming translation both ways, judged by the official SDKs: translated streams are encoded
 * as SSE, served to `@anthropic-ai/sdk`'s MessageStream and `openai`'s ChatCompletionStream
 * through their fetch option, and the messages they accumulate must equal the non-streaming
 * translation of the same reply. Also: the SSE reader and writer, upstream quirks, errors.
 */
import { describe, expect, test } from "bun:test";
import { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { APIError as OpenAIAPIError } from "openai";
import { messagesResponseToChat } from "../../../src/domains/inference/translate/chat-to-messages.ts";
import { chatResponseToMessages } from "../../../src/domains/inference/translate/messages-to-chat.ts";
import { encodeSse, parseSse } from "../../../src/domains/inference/translate/sse.ts";
import { AnthropicToChatStream } from "../../../src/domains/inference/translate/stream-anthropic-to-chat.ts";
import { ChatToAnthropicStream } from "../../../src/domains/inference/translate/stream-chat-to-anthropic.ts";
import type { AnthMessage, AnthStreamEvent, ChatChunk, ChatCompletion, ChatStreamError } from "../../../src/domains/inference/translate/types.ts";
import { anthropicClient, anthropicEventsFor, anthropicSse, chatChunksFor, chatSse, openaiClient, plain, sseResponse } from "./translate-support.ts";

const PARAMS = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
const CHAT_PARAMS = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };

function completion(message: ChatCompletion["choices"][number]["message"], finish: ChatCompletion["choices"][number]["finish_reason"]): ChatCompletion {
  return {
    id: "chatcmpl-up",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "upstream-model",
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 120, completion_tokens: 33, total_tokens: 153, prompt_tokens_details: { cached_tokens: 100 } },
  };
}

const CHAT_REPLIES: Record<string, ChatCompletion> = {
  text: completion({ role: "assistant", content: "The quick brown fox jumps over the lazy dog.", refusal: null }, "stop"),
  "one tool": completion(
    { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","unit":"C"}' } }] },
    "tool_calls",
  ),
  "text and parallel tools": completion(
    {
      role: "assistant",
      content: "Let me look both up.",
      refusal: null,
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "call_b", type: "function", function: { name: "get_time", arguments: '{"tz":"Europe/Oslo","format":"24h"}' } },
      ],
    },
    "tool_calls",
  ),
  "cut by length": completion({ role: "assistant", content: "It was a dark and storm", refusal: null }, "length"),
  empty: completion({ role: "assistant", content: "", refusal: null }, "stop"),
  "content filter": completion({ role: "assistant", content: "Partial", refusal: null }, "content_filter"),
  "tool without arguments": completion({ role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_n", type: "function", function: { name: "now", arguments: "" } }] }, "tool_calls"),
};

function message(content: AnthMessage["content"], stop: AnthMessage["stop_reason"]): AnthMessage {
  return {
    id: "msg_up",
    type: "message",
    role: "assistant",
    model: "claude-up",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 20, output_tokens: 41, cache_creation_input_tokens: 0, cache_read_input_tokens: 300 },
  };
}

const ANTHROPIC_REPLIES: Record<string, AnthMessage> = {
  text: message([{ type: "text", text: "Hello! Here is a longer answer, streamed in pieces." }], "end_turn"),
  "one tool": message([{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris", days: [1, 2] } }], "tool_use"),
  "thinking, text and parallel tools": message(
    [
      { type: "thinking", thinking: "Two lookups.", signature: "sig" },
      { type: "text", text: "Checking both cities." },
      { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Oslo" } },
    ],
    "tool_use",
  ),
  "cut by max_tokens": message([{ type: "text", text: "Once upon a" }], "max_tokens"),
  "stop sequence": message([{ type: "text", text: "Done" }], "stop_sequence"),
  empty: message([], "end_turn"),
  refusal: message([{ type: "text", text: "I can't help with that." }], "refusal"),
};

function translateChatStream(chunks: (ChatChunk | ChatStreamError)[], inputTokens?: number): AnthStreamEvent[] {
  const t = new ChatToAnthropicStream({ id: "msg_gw", model: "public-model", inputTokens });
  return [...chunks.flatMap((c) => t.push(c)), ...t.end()];
}

function translateAnthropicStream(events: AnthStreamEvent[], includeUsage: boolean): (ChatChunk | ChatStreamError)[] {
  const t = new AnthropicToChatStream({ id: "chatcmpl-gw", created: 1_700_000_123, model: "public-model", includeUsage });
  return events.flatMap((e) => t.push(e));
}

describe("OpenAI stream → Anthropic events", () => {
  for (const [name, reply] of Object.entries(CHAT_REPLIES)) {
    test(`${name}: the Anthropic SDK accumulates the same message as the non-streaming translation`, async () => {
      const events = translateChatStream(chatChunksFor(reply), 77);
      const stream = anthropicClient(anthropicSse(events)).messages.stream(PARAMS);
      const streamed = await stream.finalMessage();
      const direct = chatResponseToMessages(reply, { id: "msg_gw", model: "public-model" });
      expect(plain(streamed)).toEqual(plain(direct) as never);
    });
  }

  test("the event sequence is exactly Anthropic's: one block at a time, message_delta, message_stop", () => {
    const events = translateChatStream(chatChunksFor(CHAT_REPLIES["text and parallel tools"]!));
    const shape = events.map((e) => (e.type === "content_block_delta" ? `delta:${e.index}:${e.delta.type}` : "index" in e ? `${e.type}:${e.index}` : e.type));
    const collapsed = shape.filter((s, i) => s !== shape[i - 1]);
    expect(collapsed).toEqual([
      "message_start",
      "content_block_start:0",
      "delta:0:text_delta",
      "content_block_stop:0",
      "content_block_start:1",
      "delta:1:input_json_delta",
      "content_block_stop:1",
      "content_block_start:2",
      "delta:2:input_json_delta",
      "content_block_stop:2",
      "message_delta",
      "message_stop",
    ]);
    expect(events[0]).toMatchObject({ type: "message_start", message: { id: "msg_gw", model: "public-model", content: [], stop_reason: null } });
    expect(events.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 20, output_tokens: 33, cache_creation_input_tokens: 0, cache_read_input_tokens: 100 },
    });
  });

  test("message_start shows the caller's input estimate; the SDK ends with the upstream's real count", async () => {
    const events = translateChatStream(chatChunksFor(CHAT_REPLIES.text!), 999);
    expect((events[0] as Extract<AnthStreamEvent, { type: "message_start" }>).message.usage.input_tokens).toBe(999);
    const final = await anthropicClient(anthropicSse(events)).messages.stream(PARAMS).finalMessage();
    expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 33, cache_read_input_tokens: 100 });
  });

  test("the SDK's live events see text and tool input as they stream", async () => {
    const stream = anthropicClient(anthropicSse(translateChatStream(chatChunksFor(CHAT_REPLIES["text and parallel tools"]!)))).messages.stream(PARAMS);
    let text = "";
    const inputs: unknown[] = [];
    stream.on("text", (delta) => (text += delta));
    stream.on("inputJson", (_partial, snapshot) => inputs.push(snapshot));
    await stream.done();
    expect(text).toBe("Let me look both up.");
    expect(inputs.at(-1)).toEqual({ tz: "Europe/Oslo", format: "24h" });
  });

  test("quirky upstreams: no tool index, the name after the arguments, no id, stop instead of tool_calls, no usage", async () => {
    const base = { id: "x", object: "chat.completion.chunk" as const, created: 1, model: "llama" };
    const chunks: ChatChunk[] = [
      { ...base, choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ function: { arguments: '{"q":' } }] }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ function: { name: "search", arguments: '"svc"}' } }] }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ id: "second", function: { name: "open", arguments: "{}" } }] }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ];
    const t = new ChatToAnthropicStream({ id: "msg_q", model: "public-model" });
    const events = [...chunks.flatMap((c) => t.push(c)), ...t.end()];
    const final = await anthropicClient(anthropicSse(events)).messages.stream(PARAMS).finalMessage();
    expect(plain(final.content)).toEqual([
      { type: "tool_use", id: "toolu_q_0", name: "search", input: { q: "svc" } },
      { type: "tool_use", id: "second", name: "open", input: {} },
    ] as never);
    expect(final.stop_reason).toBe("tool_use");
    expect(final.usage.output_tokens).toBe(0);
    expect(t.producedText()).toBe('{"q":search"svc"}open{}');
  });

  test("an empty upstream stream still yields a complete, parseable message", async () => {
    const t = new ChatToAnthropicStream({ id: "msg_e", model: "m" });
    const final = await anthropicClient(anthropicSse(t.end())).messages.stream(PARAMS).finalMessage();
    expect(final).toMatchObject({ id: "msg_e", content: [], stop_reason: "end_turn" });
    expect(t.done).toBe(true);
    expect(t.end()).toEqual([]);
  });

  test("an upstream error chunk becomes an Anthropic error event the SDK raises", async () => {
    const chunks = chatChunksFor(CHAT_REPLIES.text!).slice(0, 3);
    const events = translateChatStream([...chunks, { error: { message: "model overloaded", type: "server_error" } }]);
    expect(events.at(-1)).toEqual({ type: "error", error: { type: "api_error", message: "model overloaded" } });
    expect(events.filter((e) => e.type === "message_stop")).toHaveLength(0);
    const err = await anthropicClient(anthropicSse(events)).messages.stream(PARAMS).finalMessage().catch((e) => e);
    expect(err).toBeInstanceOf(AnthropicAPIError);
    expect(String(err.message)).toContain("model overloaded");
    const t = new ChatToAnthropicStream({ id: "msg_f", model: "m" });
    t.push(chunks[0]!);
    expect(t.fail({ type: "rate_limited", message: "slow down" })).toEqual([{ type: "error", error: { type: "rate_limit_error", message: "slow down" } }]);
    expect(t.end()).toEqual([]);
  });

  test("usage() reports the upstream's counts once they arrive", () => {
    const t = new ChatToAnthropicStream({ id: "msg_u", model: "m" });
    const chunks = chatChunksFor(CHAT_REPLIES.text!);
    chunks.slice(0, -1).forEach((c) => t.push(c));
    expect(t.usage()).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 });
    expect(t.producedText()).toBe("The quick brown fox jumps over the lazy dog.");
    t.push(chunks.at(-1)!);
    expect(t.usage()).toEqual({ input_tokens: 120, output_tokens: 33, cached_input_tokens: 100 });
  });
});

describe("Anthropic stream → OpenAI chunks", () => {
  for (const [name, reply] of Object.entries(ANTHROPIC_REPLIES)) {
    test(`${name}: the OpenAI SDK accumulates the same completion as the non-streaming translation`, async () => {
      const chunks = translateAnthropicStream(anthropicEventsFor(reply), true);
      const stream = openaiClient(chatSse(chunks)).chat.completions.stream({ ...CHAT_PARAMS, stream_options: { include_usage: true } });
      const streamed = await stream.finalChatCompletion();
      const direct = messagesResponseToChat(reply, { id: "chatcmpl-gw", created: 1_700_000_123, model: "public-model" });
      expect(plain(streamed)).toEqual(plain(direct) as never);
    });
  }

  test("chunks share id, created and model; the first has the role; tool deltas lead with index, id and name", () => {
    const chunks = translateAnthropicStream(anthropicEventsFor(ANTHROPIC_REPLIES["thinking, text and parallel tools"]!), true) as ChatChunk[];
    expect(new Set(chunks.map((c) => `${c.id}|${c.created}|${c.model}|${c.object}`))).toEqual(new Set(["chatcmpl-gw|1700000123|public-model|chat.completion.chunk"]));
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    const toolOnly = translateAnthropicStream(anthropicEventsFor(ANTHROPIC_REPLIES["one tool"]!), false) as ChatChunk[];
    expect(toolOnly[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: null });
    expect(chunks.slice(1).every((c) => c.choices[0]?.delta.role === undefined)).toBe(true);
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas.filter((d) => d.id)).toEqual([
      { index: 0, id: "toolu_a", type: "function", function: { name: "get_weather", arguments: "" } },
      { index: 1, id: "toolu_b", type: "function", function: { name: "get_weather", arguments: "" } },
    ]);
    expect(toolDeltas.filter((d) => !d.id).every((d) => d.function?.name === undefined && typeof d.function?.arguments === "string")).toBe(true);
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish.map((c) => c.choices[0]!.finish_reason)).toEqual(["tool_calls"]);
    expect(chunks.at(-1)).toEqual({
      id: "chatcmpl-gw",
      object: "chat.completion.chunk",
      created: 1_700_000_123,
      model: "public-model",
      choices: [],
      usage: { prompt_tokens: 320, completion_tokens: 41, total_tokens: 361, prompt_tokens_details: { cached_tokens: 300 } },
    });
  });

  test("without include_usage no usage chunk is sent, but usage() still has it for metering", async () => {
    const t = new AnthropicToChatStream({ id: "chatcmpl-n", created: 5, model: "m", includeUsage: false });
    const chunks = anthropicEventsFor(ANTHROPIC_REPLIES.text!).flatMap((e) => t.push(e)) as ChatChunk[];
    expect(chunks.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
    expect(t.usage()).toEqual({ input_tokens: 320, output_tokens: 41, cached_input_tokens: 300 });
    expect(t.done).toBe(true);
    const final = await openaiClient(chatSse(chunks)).chat.completions.stream(CHAT_PARAMS).finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe("Hello! Here is a longer answer, streamed in pieces.");
  });

  test("usage() follows the stream: input from message_start, output from message_delta", () => {
    const t = new AnthropicToChatStream({ id: "c", created: 0, model: "m", includeUsage: false });
    const events = anthropicEventsFor(ANTHROPIC_REPLIES.text!);
    t.push(events[0]!);
    expect(t.usage()).toEqual({ input_tokens: 320, output_tokens: 1, cached_input_tokens: 300 });
    events.slice(1, 5).forEach((e) => t.push(e));
    expect(t.producedText()).toBe("Hello! Her");
  });

  test("an Anthropic error event becomes an OpenAI error payload the SDK raises", async () => {
    const events: AnthStreamEvent[] = [...anthropicEventsFor(ANTHROPIC_REPLIES.text!).slice(0, 4), { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }];
    const chunks = translateAnthropicStream(events, false);
    expect(chunks.at(-1)).toEqual({ error: { message: "Overloaded", type: "overloaded_error", code: null, param: null } });
    const err = await openaiClient(chatSse(chunks, false)).chat.completions.stream(CHAT_PARAMS).finalChatCompletion().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAIAPIError);
    expect(String(err.message)).toContain("Overloaded");
  });
});

describe("SSE", () => {
  test("the reader handles split bytes, CRLF, comments, multi-line data and a missing final blank line", async () => {
    const text = ': keep-alive\r\nevent: message_start\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: é ünïcode\n\nevent: x\ndata: last';
    const got: { event: string | undefined; data: string }[] = [];
    for await (const m of parseSse(sseResponse(text).body!)) got.push(m);
    expect(got).toEqual([
      { event: "message_start", data: '{"a":\n1}' },
      { event: undefined, data: "é ünïcode" },
      { event: "x", data: "last" },
    ]);
  });

  test("stopping early cancels the upstream body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: 1\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const m of parseSse(body)) {
      expect(m.data).toBe("1");
      break;
    }
    expect(cancelled).toBe(true);
  });

  test("the writer puts every data line in its own field and names typed events", () => {
    expect(encodeSse("a\nb")).toBe("data: a\ndata: b\n\n");
    expect(encodeSse("{}", "ping")).toBe("event: ping\ndata: {}\n\n");
  });

  test("a full pipeline: upstream Anthropic bytes → reader → translator → bytes the OpenAI SDK reads", async () => {
    const upstream = sseResponse(anthropicSse(anthropicEventsFor(ANTHROPIC_REPLIES["one tool"]!)));
    const t = new AnthropicToChatStream({ id: "chatcmpl-p", created: 9, model: "public-model", includeUsage: true });
    const out: (ChatChunk | ChatStreamError)[] = [];
    for await (const m of parseSse(upstream.body!)) out.push(...t.push(JSON.parse(m.data)));
    const final = await openaiClient(chatSse(out)).chat.completions.stream(CHAT_PARAMS).finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls![0]).toMatchObject({ id: "toolu_1", function: { name: "get_weather", arguments: '{"city":"Paris","days":[1,2]}' } });
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  });
});

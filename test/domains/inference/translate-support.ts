/**
 * Helpers for the translation tests: upstream streams built the way OpenAI and Anthropic send
 * them, and the official SDKs pointed at an in-memory SSE body (their `fetch` option), so the
 * SDKs' own SSE readers and accumulators judge what the translators produce.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { CHAT_DONE, encodeChatChunk, encodeTypedEvent } from "../../../src/domains/inference/translate/sse.ts";
import type { AnthMessage, AnthStreamEvent, ChatChunk, ChatCompletion, ChatStreamError } from "../../../src/domains/inference/translate/types.ts";

/** Splits text into pieces of at most `size` characters (at least one piece, maybe empty). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

/** What the Anthropic API streams for a finished message: start, blocks with deltas, delta, stop (with a ping). */
export function anthropicEventsFor(message: AnthMessage): AnthStreamEvent[] {
  const events: AnthStreamEvent[] = [
    {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } },
    },
    { type: "ping" },
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const text of pieces(block.text as string, 5)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    } else if (block.type === "tool_use") {
      events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } });
      for (const partial_json of pieces(JSON.stringify(block.input), 7)) events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
    } else {
      events.push({ type: "content_block_start", index, content_block: block });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push({ type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence }, usage: { output_tokens: message.usage.output_tokens } });
  events.push({ type: "message_stop" });
  return events;
}

/** What an OpenAI-compatible server streams for a finished completion (with include_usage). */
export function chatChunksFor(completion: ChatCompletion, opts: { usage?: boolean } = {}): ChatChunk[] {
  const base = { id: completion.id, object: "chat.completion.chunk" as const, created: completion.created, model: completion.model };
  const choice = completion.choices[0]!;
  const chunks: ChatChunk[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  for (const content of pieces(choice.message.content ?? "", 4)) {
    if (content) chunks.push({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] });
  }
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    chunks.push({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }, finish_reason: null }],
    });
    for (const args of pieces(call.function.arguments, 6)) {
      if (args) chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args } }] }, finish_reason: null }] });
    }
  });
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] });
  if (opts.usage !== false) chunks.push({ ...base, choices: [], usage: completion.usage ?? null });
  return chunks;
}

/** A streaming HTTP response whose body arrives in awkward 13-byte pieces. */
export function sseResponse(text: string): Response {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 13) controller.enqueue(bytes.slice(i, i + 13));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

export const anthropicSse = (events: AnthStreamEvent[]): string => events.map(encodeTypedEvent).join("");
export const chatSse = (chunks: (ChatChunk | ChatStreamError)[], done = true): string => chunks.map(encodeChatChunk).join("") + (done ? CHAT_DONE : "");
export const responsesSse = (events: { type: string }[]): string => events.map(encodeTypedEvent).join("");

/** An official Anthropic client whose every request is answered with `body` (JSON object or SSE text). */
export function anthropicClient(body: string | object): Anthropic {
  return new Anthropic({
    apiKey: "test",
    baseURL: "http://translate.test",
    maxRetries: 0,
    fetch: async () =>
      typeof body === "string" ? sseResponse(body) : new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } }),
  });
}

/** An official OpenAI client whose every request is answered with `body` (JSON object or SSE text). */
export function openaiClient(body: string | object): OpenAI {
  return new OpenAI({
    apiKey: "test",
    baseURL: "http://translate.test/v1",
    maxRetries: 0,
    fetch: async () =>
      typeof body === "string" ? sseResponse(body) : new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } }),
  });
}

/** Fields the SDKs add themselves when they finish a stream or parse a reply; no wire carries them. */
const SDK_ADDED = new Set(["parsed_output", "output_text", "output_parsed", "parsed", "parsed_arguments"]);

/** Plain JSON for deep comparison: no non-enumerable helpers, no SDK-added fields. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, v) => (SDK_ADDED.has(key) ? undefined : v));
}

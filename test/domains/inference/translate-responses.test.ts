/**
 * POST /v1/responses onto Chat Completions upstreams: request translation, the Response object,
 * and the Responses event stream, judged by the `openai` SDK's own ResponseStream accumulator.
 * Also the composition onto an Anthropic upstream (Responses → Chat → Messages and back).
 */
import { describe, expect, test } from "bun:test";
import { APIError as OpenAIAPIError } from "openai";
import { ApiError } from "../../../src/core/errors.ts";
import { chatRequestToMessages, messagesResponseToChat } from "../../../src/domains/inference/translate/chat-to-messages.ts";
import { chatResponseToResponses, responsesRequestToChat } from "../../../src/domains/inference/translate/responses.ts";
import { AnthropicToChatStream } from "../../../src/domains/inference/translate/stream-anthropic-to-chat.ts";
import { ChatToResponsesStream } from "../../../src/domains/inference/translate/stream-chat-to-responses.ts";
import type { AnthMessage, ChatChunk, ChatCompletion, ChatStreamError, ResponsesRequest, ResponsesStreamEvent } from "../../../src/domains/inference/translate/types.ts";
import { anthropicEventsFor, chatChunksFor, openaiClient, plain, responsesSse } from "./translate-support.ts";

const base: ResponsesRequest = { model: "gpt-public", input: "hi" };
const refusal = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
};

describe("Responses request → Chat request", () => {
  test("a string input with instructions becomes a system and a user message", () => {
    expect(responsesRequestToChat({ ...base, instructions: "Be brief.", input: "Hello", max_output_tokens: 50, temperature: 0.2 })).toEqual({
      model: "gpt-public",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
      ],
      max_tokens: 50,
      temperature: 0.2,
    });
    expect(responsesRequestToChat({ ...base, max_output_tokens: 9 }, { maxTokensField: "max_completion_tokens" }).max_completion_tokens).toBe(9);
  });

  test("input items: roles, images, files, a function call round and reasoning", () => {
    const chat = responsesRequestToChat({
      ...base,
      input: [
        { role: "developer", content: "Use metric units." },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "Weather here?" },
            { type: "input_image", image_url: "https://example.com/sky.jpg", detail: "low" },
            { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=", filename: "f.pdf" },
          ],
        },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Looking it up.", annotations: [] }] },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "call_2", name: "get_weather", arguments: '{"city":"Oslo"}' },
        { type: "function_call_output", call_id: "call_1", output: "18C" },
        { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "4C" }] },
        { role: "user", content: "Which is warmer?" },
      ],
    });
    expect(chat.messages).toEqual([
      { role: "system", content: "Use metric units." },
      {
        role: "user",
        content: [
          { type: "text", text: "Weather here?" },
          { type: "image_url", image_url: { url: "https://example.com/sky.jpg", detail: "low" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "f.pdf" } },
        ],
      },
      {
        role: "assistant",
        content: "Looking it up.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "18C" },
      { role: "tool", tool_call_id: "call_2", content: "4C" },
      { role: "user", content: "Which is warmer?" },
    ]);
  });

  test("tools, tool_choice, text.format, reasoning effort and streaming", () => {
    const chat = responsesRequestToChat({
      ...base,
      tools: [{ type: "function", name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} }, strict: true }],
      tool_choice: { type: "function", name: "get_weather" },
      parallel_tool_calls: false,
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
      reasoning: { effort: "low" },
      stream: true,
      user: "u1",
    });
    expect(chat).toEqual({
      model: "gpt-public",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} }, strict: true } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
      reasoning_effort: "low",
      stream: true,
      stream_options: { include_usage: true },
      user: "u1",
    });
    for (const choice of ["auto", "none", "required"] as const) {
      expect(responsesRequestToChat({ ...base, tools: [{ type: "function", name: "f" }], tool_choice: choice }).tool_choice).toBe(choice);
    }
    expect(responsesRequestToChat({ ...base, text: { format: { type: "json_object" } } }).response_format).toEqual({ type: "json_object" });
    expect(responsesRequestToChat({ ...base, text: { format: { type: "text" } } }).response_format).toBeUndefined();
  });

  test("what only OpenAI's servers can do is refused with the field named", () => {
    expect(refusal(() => responsesRequestToChat({ ...base, tools: [{ type: "web_search" }] })).extra.param).toBe("tools[0]");
    expect(refusal(() => responsesRequestToChat({ ...base, input: [{ type: "item_reference", id: "msg_1" }] })).extra.param).toBe("input[0]");
    expect(refusal(() => responsesRequestToChat({ ...base, input: [{ role: "user", content: [{ type: "input_image", file_id: "file-1" }] }] })).extra.param).toBe(
      "input[0].content[0]",
    );
    expect(refusal(() => responsesRequestToChat({ ...base, input: [] })).extra.param).toBe("input");
    expect(refusal(() => responsesRequestToChat({ ...base, input: 5 as never })).extra.param).toBe("input");
  });

  test("a Responses request reaches an Anthropic upstream through Chat", () => {
    const anth = chatRequestToMessages(
      responsesRequestToChat({ ...base, instructions: "Be brief.", input: [{ role: "user", content: "Hi" }], tools: [{ type: "function", name: "f", parameters: { type: "object" } }] }),
      { defaultMaxTokens: 1024 },
    );
    expect(anth).toEqual({ model: "gpt-public", system: "Be brief.", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }], tools: [{ name: "f", input_schema: { type: "object" } }] });
  });
});

function completion(message: ChatCompletion["choices"][number]["message"], finish: ChatCompletion["choices"][number]["finish_reason"]): ChatCompletion {
  return {
    id: "chatcmpl-up",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "upstream-model",
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 90, completion_tokens: 12, total_tokens: 102, prompt_tokens_details: { cached_tokens: 64 }, completion_tokens_details: { reasoning_tokens: 0 } },
  };
}

const REPLIES: Record<string, ChatCompletion> = {
  text: completion({ role: "assistant", content: "Paris is warmer today, at 18 degrees.", refusal: null }, "stop"),
  "text and parallel tools": completion(
    {
      role: "assistant",
      content: "Checking.",
      refusal: null,
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "call_b", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      ],
    },
    "tool_calls",
  ),
  "one tool": completion({ role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_x", type: "function", function: { name: "now", arguments: "{}" } }] }, "tool_calls"),
  "cut by max_output_tokens": completion({ role: "assistant", content: "It was a dark", refusal: null }, "length"),
  empty: completion({ role: "assistant", content: "", refusal: null }, "stop"),
};

const REQUEST: ResponsesRequest = { model: "gpt-public", input: "Which is warmer?", instructions: "Be brief.", tools: [{ type: "function", name: "get_weather", parameters: { type: "object" } }] };
const OPTS = { id: "resp_abc", createdAt: 1_700_000_500, completedAt: 1_700_000_501, model: "gpt-public", request: REQUEST };

function translateStream(chunks: (ChatChunk | ChatStreamError)[]): ResponsesStreamEvent[] {
  const t = new ChatToResponsesStream({ ...OPTS, now: () => 1_700_000_501 });
  return [...chunks.flatMap((c) => t.push(c)), ...t.end()];
}

describe("Chat reply → Response object", () => {
  test("text and tool calls become output items with status and usage", () => {
    const res = chatResponseToResponses(REPLIES["text and parallel tools"]!, OPTS);
    expect(res).toMatchObject({
      id: "resp_abc",
      object: "response",
      created_at: 1_700_000_500,
      completed_at: 1_700_000_501,
      status: "completed",
      error: null,
      incomplete_details: null,
      instructions: "Be brief.",
      model: "gpt-public",
      store: false,
      tools: REQUEST.tools,
      tool_choice: "auto",
      parallel_tool_calls: true,
      usage: { input_tokens: 90, input_tokens_details: { cached_tokens: 64 }, output_tokens: 12, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 102 },
    });
    expect(res.output).toEqual([
      { type: "message", id: "msg_abc_0", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Checking.", annotations: [], logprobs: [] }] },
      { type: "function_call", id: "fc_abc_1", call_id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" },
      { type: "function_call", id: "fc_abc_2", call_id: "call_b", name: "get_weather", arguments: '{"city":"Oslo"}', status: "completed" },
    ]);
  });

  test("a reply cut by the token limit is incomplete, with the reason", () => {
    const res = chatResponseToResponses(REPLIES["cut by max_output_tokens"]!, OPTS);
    expect(res.status).toBe("incomplete");
    expect(res.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(res.output[0]!.status).toBe("incomplete");
  });

  test("the openai SDK reads the Response and its output_text", async () => {
    const res = chatResponseToResponses(REPLIES.text!, OPTS);
    const got = await openaiClient(res).responses.create({ model: "m", input: "x" });
    expect(got.output_text).toBe("Paris is warmer today, at 18 degrees.");
    expect(got.usage?.total_tokens).toBe(102);
  });
});

describe("Chat stream → Responses events", () => {
  for (const [name, reply] of Object.entries(REPLIES)) {
    test(`${name}: the openai SDK's ResponseStream ends with the non-streaming Response`, async () => {
      const events = translateStream(chatChunksFor(reply));
      const final = await openaiClient(responsesSse(events)).responses.stream({ model: "m", input: "x" }).finalResponse();
      expect(plain(final)).toEqual(plain(chatResponseToResponses(reply, OPTS)) as never);
    });
  }

  test("the event sequence: created, in_progress, items opened and closed in order, completed", () => {
    const events = translateStream(chatChunksFor(REPLIES["text and parallel tools"]!));
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const kinds = events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);
    expect(kinds).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[0]).toMatchObject({ response: { id: "resp_abc", status: "in_progress", output: [], usage: null, completed_at: null } });
    expect(events.find((e) => e.type === "response.output_item.added" && (e.item as { type: string }).type === "function_call")).toMatchObject({
      output_index: 1,
      item: { id: "fc_abc_1", call_id: "call_a", name: "get_weather", arguments: "", status: "in_progress" },
    });
  });

  test("the SDK's live events see text and argument deltas", async () => {
    const stream = openaiClient(responsesSse(translateStream(chatChunksFor(REPLIES["text and parallel tools"]!)))).responses.stream({ model: "m", input: "x" });
    let text = "";
    let lastArgs = "";
    stream.on("response.output_text.delta", (e) => (text += e.delta));
    stream.on("response.function_call_arguments.delta", (e) => (lastArgs = e.snapshot));
    await stream.done();
    expect(text).toBe("Checking.");
    expect(lastArgs).toBe('{"city":"Oslo"}');
  });

  test("a cut-off reply ends with response.incomplete", () => {
    const events = translateStream(chatChunksFor(REPLIES["cut by max_output_tokens"]!));
    expect(events.at(-1)).toMatchObject({ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } } });
  });

  test("an upstream failure yields an error event the SDK raises, then response.failed", async () => {
    const chunks: (ChatChunk | ChatStreamError)[] = [...chatChunksFor(REPLIES.text!).slice(0, 3), { error: { message: "upstream died", type: "server_error" } }];
    const events = translateStream(chunks);
    expect(events.slice(-2).map((e) => e.type)).toEqual(["error", "response.failed"]);
    expect(events.at(-1)).toMatchObject({ response: { status: "failed", error: { code: "server_error", message: "upstream died" }, usage: null } });
    const err = await openaiClient(responsesSse(events)).responses.stream({ model: "m", input: "x" }).finalResponse().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAIAPIError);
    expect(String(err.message)).toContain("upstream died");
  });

  test("usage() and producedText() for metering", () => {
    const t = new ChatToResponsesStream({ ...OPTS, now: () => 0 });
    const chunks = chatChunksFor(REPLIES.text!);
    chunks.slice(0, 3).forEach((c) => t.push(c));
    expect(t.producedText()).toBe("Paris is");
    chunks.slice(3).forEach((c) => t.push(c));
    expect(t.usage()).toEqual({ input_tokens: 90, output_tokens: 12, cached_input_tokens: 64 });
    t.end();
    expect(t.done).toBe(true);
    expect(t.end()).toEqual([]);
  });
});

describe("Responses over an Anthropic upstream", () => {
  test("Anthropic events → Chat chunks → Responses events: the SDK gets the same Response as the non-streaming path", async () => {
    const reply: AnthMessage = {
      id: "msg_up",
      type: "message",
      role: "assistant",
      model: "claude-up",
      content: [
        { type: "text", text: "Let me check the weather." },
        { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Paris" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 15, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
    };
    const toChat = new AnthropicToChatStream({ id: "chatcmpl-x", created: 1, model: "gpt-public", includeUsage: true });
    const toResponses = new ChatToResponsesStream({ ...OPTS, now: () => 1_700_000_501 });
    const events = [...anthropicEventsFor(reply).flatMap((e) => toChat.push(e)).flatMap((c) => toResponses.push(c)), ...toResponses.end()];
    const streamed = await openaiClient(responsesSse(events)).responses.stream({ model: "m", input: "x" }).finalResponse();
    const direct = chatResponseToResponses(messagesResponseToChat(reply, { id: "chatcmpl-x", created: 1 }), OPTS);
    expect(plain(streamed)).toEqual(plain(direct) as never);
    expect(direct.output.map((o) => o.type)).toEqual(["message", "function_call"]);
    expect(direct.usage).toMatchObject({ input_tokens: 40, input_tokens_details: { cached_tokens: 10 }, output_tokens: 15 });
  });
});

/**
 * Request and response translation between OpenAI Chat Completions and Anthropic Messages:
 * system prompts, content and images, tools and tool results, parameters, stop reasons, usage,
 * svc field stripping and Chat pass-through. Streaming is in translate-stream.test.ts, the
 * Responses API in translate-responses.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/core/errors.ts";
import { chatRequestToMessages, messagesResponseToChat } from "../../../src/domains/inference/translate/chat-to-messages.ts";
import { chatResponseToMessages, messagesRequestToChat } from "../../../src/domains/inference/translate/messages-to-chat.ts";
import { chatPassthrough, isUsageOnlyChunk } from "../../../src/domains/inference/translate/passthrough.ts";
import { anthropicStopToChat, chatFinishToAnthropic, chatFinishToResponses } from "../../../src/domains/inference/translate/stop-reasons.ts";
import { stripSvcFields } from "../../../src/domains/inference/translate/svc-fields.ts";
import type { AnthMessage, ChatCompletion, ChatRequest, MessagesRequest } from "../../../src/domains/inference/translate/types.ts";
import {
  anthropicUsageToChat,
  chatUsageToAnthropic,
  chatUsageToResponses,
  normalizeUsage,
  streamUsageRequested,
} from "../../../src/domains/inference/translate/usage.ts";
import { anthropicClient, openaiClient, plain } from "./translate-support.ts";

const MAX = 4096;
const toAnth = (req: Partial<ChatRequest>) => chatRequestToMessages({ model: "m", messages: [], ...req } as ChatRequest, { defaultMaxTokens: MAX });
const toChat = (req: Partial<MessagesRequest>) => messagesRequestToChat({ model: "m", max_tokens: 100, messages: [], ...req } as MessagesRequest);

/** Runs fn and returns the ApiError it throws (fails the test when it does not throw one). */
function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("plain chat", () => {
  test("a Chat request becomes an Anthropic request and back", () => {
    const chat: ChatRequest = {
      model: "gpt-x",
      messages: [
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi! How can I help?" },
        { role: "user", content: "Tell me a joke." },
      ],
      max_tokens: 200,
      top_p: 0.9,
    };
    const anth = chatRequestToMessages(chat, { defaultMaxTokens: MAX });
    expect(anth).toEqual({
      model: "gpt-x",
      max_tokens: 200,
      top_p: 0.9,
      messages: [
        { role: "user", content: "Hello" },
        { role: "assistant", content: [{ type: "text", text: "Hi! How can I help?" }] },
        { role: "user", content: "Tell me a joke." },
      ],
    });
    const back = messagesRequestToChat(anth);
    expect(back).toEqual(chat);
  });

  test("an Anthropic request becomes a Chat request and back", () => {
    const anth: MessagesRequest = {
      model: "claude-x",
      max_tokens: 300,
      messages: [
        { role: "user", content: "What is 2+2?" },
        { role: "assistant", content: "4" },
        { role: "user", content: [{ type: "text", text: "And 3+3?" }] },
      ],
      stop_sequences: ["\n\nHuman:"],
      metadata: { user_id: "u-1" },
    };
    const chat = messagesRequestToChat(anth);
    expect(chat).toEqual({
      model: "claude-x",
      max_tokens: 300,
      stop: ["\n\nHuman:"],
      user: "u-1",
      messages: [
        { role: "user", content: "What is 2+2?" },
        { role: "assistant", content: "4" },
        { role: "user", content: "And 3+3?" },
      ],
    });
    const back = chatRequestToMessages(chat, { defaultMaxTokens: MAX });
    expect(back.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "4" }] });
    expect(back.metadata).toEqual({ user_id: "u-1" });
    expect(back.stop_sequences).toEqual(["\n\nHuman:"]);
  });

  test("replies translate both ways and round-trip", () => {
    const anthReply: AnthMessage = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "text", text: "Hello " }, { type: "text", text: "there." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    const chat = messagesResponseToChat(anthReply, { id: "chatcmpl-1", created: 1_700_000_000, model: "public-model" });
    expect(chat).toEqual({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "public-model",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there.", refusal: null }, finish_reason: "stop", logprobs: null }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0 } },
    });
    const again = chatResponseToMessages(chat, { id: "msg_1", model: "claude-x" });
    expect(again).toEqual({ ...anthReply, content: [{ type: "text", text: "Hello there." }] });
  });

  test("translated replies parse with the official SDKs", async () => {
    const chat: ChatCompletion = {
      id: "chatcmpl-9",
      object: "chat.completion",
      created: 1_700_000_001,
      model: "gpt-x",
      choices: [{ index: 0, message: { role: "assistant", content: "ok", refusal: null }, finish_reason: "stop", logprobs: null }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    };
    const anth = chatResponseToMessages(chat, { id: "msg_9" });
    const viaSdk = await anthropicClient(anth).messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(plain(viaSdk)).toEqual(plain(anth) as never);
    const back = messagesResponseToChat(anth, { id: "chatcmpl-9", created: 1_700_000_001 });
    const viaOpenAi = await openaiClient(back).chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(viaOpenAi.choices[0]!.message.content).toBe("ok");
    expect(viaOpenAi.usage?.total_tokens).toBe(4);
  });
});

describe("system prompts", () => {
  test("system and developer messages, wherever they are, join in order into Anthropic's system", () => {
    const anth = toAnth({
      messages: [
        { role: "system", content: "You are terse." },
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
        { role: "user", content: "Hi" },
        { role: "system", content: "Never use emoji." },
      ],
    });
    expect(anth.system).toBe("You are terse.\n\nAnswer in French.\n\nNever use emoji.");
    expect(anth.messages).toEqual([{ role: "user", content: "Hi" }]);
  });

  test("Anthropic's system (string or text blocks) becomes one leading system message", () => {
    expect(toChat({ system: "Be brief.", messages: [{ role: "user", content: "x" }] }).messages[0]).toEqual({ role: "system", content: "Be brief." });
    const blocks = toChat({
      system: [{ type: "text", text: "Part one." }, { type: "text", text: "Part two.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "x" }],
    });
    expect(blocks.messages).toEqual([
      { role: "system", content: "Part one.\n\nPart two." },
      { role: "user", content: "x" },
    ]);
    // The round trip keeps the text.
    expect(chatRequestToMessages(blocks, { defaultMaxTokens: MAX }).system).toBe("Part one.\n\nPart two.");
  });

  test("a system entry inside Anthropic messages stays a system message in place", () => {
    const chat = toChat({ messages: [{ role: "user", content: "a" }, { role: "system", content: "switch to formal" }, { role: "user", content: "b" }] });
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "system", "user"]);
  });

  test("a non-text system part is refused by name", () => {
    const e = refusal(() => toAnth({ messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "http://x/y.png" } }] }, { role: "user", content: "hi" }] }));
    expect(e.status).toBe(400);
    expect(e.extra.param).toBe("messages[0].content[0]");
  });
});

describe("content and images", () => {
  test("data: URLs become base64 image blocks and http URLs url blocks, and back", () => {
    const anth = toAnth({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What are these?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}`, detail: "high" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          ],
        },
      ],
    });
    expect(anth.messages[0]!.content).toEqual([
      { type: "text", text: "What are these?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_B64 } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
    ]);
    const chat = messagesRequestToChat(anth);
    expect(chat.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What are these?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}` } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
      ],
    });
  });

  test("image types and parts Anthropic cannot take are refused with the field named", () => {
    const bmp = refusal(() => toAnth({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,AAAA" } }] }] }));
    expect(bmp.extra.param).toBe("messages[0].content[0].image_url.url");
    expect(bmp.message).toContain("image/bmp");
    const audio = refusal(() => toAnth({ messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "x", format: "wav" } }] }] }));
    expect(audio.extra.param).toBe("messages[0].content[0].type");
    const ftp = refusal(() => toAnth({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "ftp://x/y.png" } }] }] }));
    expect(ftp.status).toBe(400);
  });

  test("inline PDFs become document blocks and back", () => {
    const anth = toAnth({ messages: [{ role: "user", content: [{ type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" } }] }] });
    expect(anth.messages[0]!.content).toEqual([{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } }]);
    const chat = messagesRequestToChat(anth);
    expect(chat.messages[0]!.content).toEqual([{ type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=" } }]);
    expect(refusal(() => toAnth({ messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file-1" } }] }] })).extra.param).toBe(
      "messages[0].content[0].file",
    );
  });

  test("consecutive same-role messages merge into one Anthropic turn; empty ones are dropped", () => {
    const anth = toAnth({
      messages: [
        { role: "user", content: "first" },
        { role: "user", content: [{ type: "text", text: "second" }] },
        { role: "assistant", content: "" },
        { role: "user", content: "third" },
        { role: "assistant", content: "a" },
        { role: "assistant", content: "b" },
      ],
    });
    expect(anth.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "second" },
          { type: "text", text: "third" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
    ]);
  });
});

describe("tools", () => {
  const weather = {
    type: "function" as const,
    function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  };

  test("tool definitions map both ways", () => {
    const anth = toAnth({ messages: [{ role: "user", content: "hi" }], tools: [weather] });
    expect(anth.tools).toEqual([{ name: "get_weather", description: "Weather for a city", input_schema: weather.function.parameters }]);
    expect(anth.tool_choice).toBeUndefined();
    const chat = messagesRequestToChat(anth);
    expect(chat.tools).toEqual([weather]);
    // A function without parameters still gets the object schema Anthropic requires.
    expect(toAnth({ messages: [{ role: "user", content: "x" }], tools: [{ type: "function", function: { name: "now" } }] }).tools).toEqual([
      { name: "now", input_schema: { type: "object", properties: {} } },
    ]);
  });

  test("tool_choice: auto/none/required/named ↔ auto/none/any/tool, with parallel_tool_calls", () => {
    const cases: [ChatRequest["tool_choice"], unknown][] = [
      ["auto", undefined],
      ["none", { type: "none" }],
      ["required", { type: "any" }],
      [{ type: "function", function: { name: "get_weather" } }, { type: "tool", name: "get_weather" }],
    ];
    for (const [choice, expected] of cases) {
      const anth = toAnth({ messages: [{ role: "user", content: "x" }], tools: [weather], tool_choice: choice });
      expect(anth.tool_choice).toEqual(expected as never);
    }
    const back: [MessagesRequest["tool_choice"], unknown][] = [
      [{ type: "auto" }, "auto"],
      [{ type: "none" }, "none"],
      [{ type: "any" }, "required"],
      [{ type: "tool", name: "get_weather" }, { type: "function", function: { name: "get_weather" } }],
    ];
    const tools = [{ name: "get_weather", input_schema: { type: "object" } }];
    for (const [choice, expected] of back) expect(toChat({ messages: [{ role: "user", content: "x" }], tools, tool_choice: choice }).tool_choice).toEqual(expected as never);

    const serial = toAnth({ messages: [{ role: "user", content: "x" }], tools: [weather], parallel_tool_calls: false });
    expect(serial.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    const serialAny = toAnth({ messages: [{ role: "user", content: "x" }], tools: [weather], tool_choice: "required", parallel_tool_calls: false });
    expect(serialAny.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
    const serialBack = toChat({ messages: [{ role: "user", content: "x" }], tools, tool_choice: { type: "any", disable_parallel_tool_use: true } });
    expect(serialBack).toMatchObject({ tool_choice: "required", parallel_tool_calls: false });
  });

  test("a conversation with parallel tool calls and their results round-trips", () => {
    const chat: ChatRequest = {
      model: "m",
      messages: [
        { role: "user", content: "Weather in Paris and Oslo?" },
        {
          role: "assistant",
          content: "Checking both.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_b", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "18C sunny" },
        { role: "tool", tool_call_id: "call_b", content: [{ type: "text", text: "4C " }, { type: "text", text: "snow" }] },
        { role: "user", content: "Thanks! Which is warmer?" },
      ],
      tools: [weather],
    };
    const anth = chatRequestToMessages(chat, { defaultMaxTokens: MAX });
    expect(anth.messages).toEqual([
      { role: "user", content: "Weather in Paris and Oslo?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "call_a", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "call_b", name: "get_weather", input: { city: "Oslo" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_a", content: "18C sunny" },
          { type: "tool_result", tool_use_id: "call_b", content: "4C snow" },
          { type: "text", text: "Thanks! Which is warmer?" },
        ],
      },
    ]);
    const back = messagesRequestToChat(anth);
    expect(back.messages).toEqual([
      { role: "user", content: "Weather in Paris and Oslo?" },
      chat.messages[1]!,
      { role: "tool", tool_call_id: "call_a", content: "18C sunny" },
      { role: "tool", tool_call_id: "call_b", content: "4C snow" },
      { role: "user", content: "Thanks! Which is warmer?" },
    ]);
  });

  test("tool results go first in their Anthropic turn; errors and images in results are carried", () => {
    const anth = toAnth({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "" } }] },
        { role: "tool", tool_call_id: "c1", content: "done" },
      ],
    });
    expect(anth.messages[1]!.content).toEqual([{ type: "tool_use", id: "c1", name: "f", input: {} }]);

    const chat = toChat({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "shot", input: {} }] },
        {
          role: "user",
          content: [
            { type: "text", text: "here you go" },
            { type: "tool_result", tool_use_id: "t1", is_error: true, content: [{ type: "text", text: "disk full" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_B64 } }] },
          ],
        },
      ],
    });
    expect(chat.messages.slice(1)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "shot", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "t1", content: "Error: disk full" },
      { role: "user", content: [{ type: "text", text: "here you go" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}` } }] },
    ]);
  });

  test("broken tool-call JSON is kept, not lost, and thinking blocks are dropped", () => {
    const anth = toAnth({
      messages: [
        { role: "user", content: "x" },
        { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"a":' } }] },
        { role: "tool", tool_call_id: "c", content: "?" },
      ],
    });
    expect((anth.messages[1]!.content as { input: unknown }[])[0]!.input).toEqual({ _raw_arguments: '{"a":' });
    const chat = toChat({
      messages: [
        { role: "user", content: "x" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "sig" }, { type: "text", text: "y" }] },
      ],
    });
    expect(chat.messages[1]).toEqual({ role: "assistant", content: "y" });
  });

  test("tools the other side cannot run are refused by name", () => {
    expect(refusal(() => toChat({ messages: [{ role: "user", content: "x" }], tools: [{ type: "web_search_20250305", name: "web_search" } as never] })).extra.param).toBe("tools[0]");
    expect(refusal(() => toAnth({ messages: [{ role: "user", content: "x" }], tools: [{ type: "custom", custom: { name: "c" } }] })).extra.param).toBe("tools[0]");
    expect(
      refusal(() => toAnth({ messages: [{ role: "user", content: "x" }], tools: [weather], tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [] } } })).extra.param,
    ).toBe("tool_choice");
    expect(refusal(() => toAnth({ messages: [{ role: "function", name: "f", content: "x" } as never] })).extra.param).toBe("messages[0].role");
  });

  test("tool-call replies translate both ways, stop reason included", () => {
    const chat: ChatCompletion = {
      id: "chatcmpl-t",
      object: "chat.completion",
      created: 1,
      model: "gpt-x",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            refusal: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
            ],
          },
          finish_reason: "tool_calls",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
    };
    const anth = chatResponseToMessages(chat, { id: "msg_t", model: "public" });
    expect(anth).toEqual({
      id: "msg_t",
      type: "message",
      role: "assistant",
      model: "public",
      content: [
        { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
        { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "Oslo" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    const back = messagesResponseToChat(anth, { id: "chatcmpl-t", created: 1, model: "gpt-x" });
    expect(back).toEqual({ ...chat, usage: { ...chat.usage!, prompt_tokens_details: { cached_tokens: 0 } } });
  });

  test("a tool call answered with finish_reason stop (some local servers) still reports tool_use", () => {
    const anth = chatResponseToMessages(
      {
        id: "x",
        object: "chat.completion",
        created: 1,
        model: "llama",
        choices: [{ index: 0, message: { role: "assistant", content: "", refusal: null, tool_calls: [{ id: "", type: "function", function: { name: "f", arguments: "{}" } }] }, finish_reason: "stop", logprobs: null }],
      },
      { id: "msg_abc" },
    );
    expect(anth.stop_reason).toBe("tool_use");
    expect(anth.content).toEqual([{ type: "tool_use", id: "toolu_abc_0", name: "f", input: {} }]);
  });
});

describe("parameters", () => {
  test("max tokens: max_completion_tokens, else max_tokens, else the model's max output", () => {
    expect(toAnth({ messages: [{ role: "user", content: "x" }], max_completion_tokens: 10, max_tokens: 20 }).max_tokens).toBe(10);
    expect(toAnth({ messages: [{ role: "user", content: "x" }], max_tokens: 20 }).max_tokens).toBe(20);
    expect(toAnth({ messages: [{ role: "user", content: "x" }] }).max_tokens).toBe(MAX);
    expect(messagesRequestToChat({ model: "m", max_tokens: 99, messages: [{ role: "user", content: "x" }] }, { maxTokensField: "max_completion_tokens" })).toEqual({
      model: "m",
      max_completion_tokens: 99,
      messages: [{ role: "user", content: "x" }],
    });
  });

  test("temperature is clamped to Anthropic's range and wins over top_p; stop becomes stop_sequences", () => {
    const anth = toAnth({ messages: [{ role: "user", content: "x" }], temperature: 1.7, top_p: 1, stop: "END" });
    expect(anth.temperature).toBe(1);
    expect(anth.top_p).toBeUndefined();
    expect(toAnth({ messages: [{ role: "user", content: "x" }], top_p: 0.8 }).top_p).toBe(0.8);
    expect(toChat({ messages: [{ role: "user", content: "x" }], temperature: 0.3, top_p: 0.8 })).toMatchObject({ temperature: 0.3, top_p: 0.8 });
    expect(anth.stop_sequences).toEqual(["END"]);
    expect(toAnth({ messages: [{ role: "user", content: "x" }], stop: ["a", "b"] }).stop_sequences).toEqual(["a", "b"]);
  });

  test("response_format becomes a system instruction for Anthropic", () => {
    const obj = toAnth({ system: undefined, messages: [{ role: "system", content: "Be nice." }, { role: "user", content: "x" }], response_format: { type: "json_object" } });
    expect(obj.system).toStartWith("Be nice.\n\nRespond with a single valid JSON object");
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    const js = toAnth({ messages: [{ role: "user", content: "x" }], response_format: { type: "json_schema", json_schema: { name: "count", schema } } });
    expect(js.system).toContain(`JSON Schema "count": ${JSON.stringify(schema)}`);
    expect(toAnth({ messages: [{ role: "user", content: "x" }], response_format: { type: "text" } }).system).toBeUndefined();
  });

  test("n > 1 and the functions API are refused; OpenAI-only knobs are dropped for Anthropic", () => {
    expect(refusal(() => toAnth({ messages: [{ role: "user", content: "x" }], n: 2 })).extra.param).toBe("n");
    expect(refusal(() => toAnth({ messages: [{ role: "user", content: "x" }], functions: [] })).extra.param).toBe("functions");
    const anth = toAnth({ messages: [{ role: "user", content: "x" }], seed: 7, logprobs: true, frequency_penalty: 0.3, stream: true, stream_options: { include_usage: true } });
    expect(Object.keys(anth).sort()).toEqual(["max_tokens", "messages", "model", "stream"]);
  });

  test("an Anthropic stream asks the Chat upstream for usage; top_k and thinking are dropped", () => {
    const chat = toChat({ messages: [{ role: "user", content: "x" }], stream: true, top_k: 5, thinking: { type: "enabled", budget_tokens: 1024 } });
    expect(chat).toEqual({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "x" }], stream: true, stream_options: { include_usage: true } });
  });

  test("empty message lists are refused", () => {
    expect(refusal(() => toAnth({ messages: [] })).extra.param).toBe("messages");
    expect(refusal(() => toChat({ messages: [] })).extra.param).toBe("messages");
  });
});

describe("stop reasons", () => {
  test("Anthropic → OpenAI", () => {
    expect(anthropicStopToChat("end_turn")).toBe("stop");
    expect(anthropicStopToChat("stop_sequence")).toBe("stop");
    expect(anthropicStopToChat("max_tokens")).toBe("length");
    expect(anthropicStopToChat("tool_use")).toBe("tool_calls");
    expect(anthropicStopToChat("refusal")).toBe("content_filter");
    expect(anthropicStopToChat("model_context_window_exceeded")).toBe("length");
    expect(anthropicStopToChat("pause_turn")).toBe("stop");
    expect(anthropicStopToChat(null)).toBeNull();
  });

  test("OpenAI → Anthropic", () => {
    expect(chatFinishToAnthropic("stop")).toBe("end_turn");
    expect(chatFinishToAnthropic("length")).toBe("max_tokens");
    expect(chatFinishToAnthropic("tool_calls")).toBe("tool_use");
    expect(chatFinishToAnthropic("function_call")).toBe("tool_use");
    expect(chatFinishToAnthropic("content_filter")).toBe("end_turn");
    expect(chatFinishToAnthropic(null)).toBe("end_turn");
    expect(chatFinishToAnthropic("stop", true)).toBe("tool_use");
    expect(chatFinishToAnthropic("length", true)).toBe("max_tokens");
  });

  test("OpenAI → Responses status", () => {
    expect(chatFinishToResponses("stop")).toEqual({ status: "completed", incomplete_details: null });
    expect(chatFinishToResponses("tool_calls")).toEqual({ status: "completed", incomplete_details: null });
    expect(chatFinishToResponses("length")).toEqual({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(chatFinishToResponses("content_filter")).toEqual({ status: "incomplete", incomplete_details: { reason: "content_filter" } });
  });

  test("reply stop reasons survive both directions", () => {
    for (const reason of ["end_turn", "max_tokens", "tool_use"] as const) {
      const msg: AnthMessage = { id: "msg_s", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "x" }], stop_reason: reason, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
      const chat = messagesResponseToChat(msg, { id: "c", created: 0 });
      expect(chatResponseToMessages(chat, { id: "msg_s" }).stop_reason).toBe(reason);
    }
  });
});

describe("usage", () => {
  test("every shape normalises to input (cached included), output and cached input", () => {
    expect(normalizeUsage({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 60 } })).toEqual({
      input_tokens: 100,
      output_tokens: 20,
      cached_input_tokens: 60,
    });
    expect(normalizeUsage({ input_tokens: 40, output_tokens: 20, cache_read_input_tokens: 60, cache_creation_input_tokens: 10 })).toEqual({
      input_tokens: 110,
      output_tokens: 20,
      cached_input_tokens: 60,
    });
    expect(normalizeUsage({ input_tokens: 100, output_tokens: 20, input_tokens_details: { cached_tokens: 60 }, total_tokens: 120 })).toEqual({
      input_tokens: 100,
      output_tokens: 20,
      cached_input_tokens: 60,
    });
    expect(normalizeUsage(null)).toBeNull();
    expect(normalizeUsage({})).toBeNull();
    expect(normalizeUsage({ prompt_tokens: -3, completion_tokens: "x" })).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 });
  });

  test("cache tokens map between the two conventions and round-trip", () => {
    const chat = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 60 } };
    const anth = chatUsageToAnthropic(chat);
    expect(anth).toEqual({ input_tokens: 40, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 60 });
    expect(anthropicUsageToChat(anth)).toEqual(chat);
    // Cache writes are input the upstream processed: they count in prompt_tokens, uncached.
    expect(anthropicUsageToChat({ input_tokens: 5, output_tokens: 1, cache_creation_input_tokens: 1000, cache_read_input_tokens: 0 })).toMatchObject({
      prompt_tokens: 1005,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(chatUsageToResponses({ ...chat, completion_tokens_details: { reasoning_tokens: 7 } })).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 60 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 7 },
      total_tokens: 120,
    });
  });
});

describe("svc fields and pass-through", () => {
  test("stripSvcFields removes svc's own fields, returns them, and names unknown svc_ fields", () => {
    const body = {
      model: "m",
      messages: [{ role: "user", content: "x" }],
      svc_privacy_tier: "confidential",
      svc_region: "eu",
      svc_scrub: true,
      svc_run_id: "run_1",
      svc_context: [{ id: "doc", text: "…" }],
      svc_regoin: "typo",
      seed: 3,
    };
    const { clean, svc, unknownSvc } = stripSvcFields(body);
    expect(clean).toEqual({ model: "m", messages: [{ role: "user", content: "x" }], seed: 3 } as never);
    expect(svc).toEqual({ svc_privacy_tier: "confidential", svc_region: "eu", svc_scrub: true, svc_run_id: "run_1", svc_context: [{ id: "doc", text: "…" }] });
    expect(unknownSvc).toEqual(["svc_regoin"]);
    expect(body.svc_region).toBe("eu"); // the input is not mutated
  });

  test("Chat → Chat keeps every unknown field unchanged; only model and usage reporting are set", () => {
    const body: ChatRequest = {
      model: "public-id",
      messages: [{ role: "user", content: [{ type: "text", text: "hi", vendor_hint: { x: 1 } }] }],
      seed: 42,
      logit_bias: { "50256": -100 },
      top_k: 40,
      repetition_penalty: 1.1,
      chat_template_kwargs: { enable_thinking: false },
      response_format: { type: "json_schema", json_schema: { name: "n", schema: { type: "object" }, strict: true } },
      stream: true,
      stream_options: { include_obfuscation: false },
    };
    const snapshot = structuredClone(body);
    const { body: out, clientWantsUsage } = chatPassthrough(body, "upstream-name");
    expect(out).toEqual({ ...snapshot, model: "upstream-name", stream_options: { include_obfuscation: false, include_usage: true } });
    expect(clientWantsUsage).toBe(false);
    expect(body).toEqual(snapshot);
    expect(chatPassthrough({ model: "m", messages: [], stream: true, stream_options: { include_usage: true } }, "u").clientWantsUsage).toBe(true);
    expect(chatPassthrough({ model: "m", messages: [], temperature: 0 }, "u").body).toEqual({ model: "u", messages: [], temperature: 0 });
    expect(streamUsageRequested({ stream_options: { include_usage: true } })).toBe(true);
    expect(isUsageOnlyChunk({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })).toBe(true);
    expect(isUsageOnlyChunk({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })).toBe(false);
  });
});

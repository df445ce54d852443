/**
 * The upstream stub's OpenAI face: chat completions, embeddings and Responses, in the shapes
 * the official `openai` package reads (upstream.ts has the server and the behaviours).
 */
import { createHash } from "node:crypto";
import type { Reply, StubCall } from "./upstream.ts";
import { countText, dataFrame, eventFrame, type Generated, generate, imagesIn, piecesOf, sampleFromSchema, scriptedCall, textOf } from "./upstream-generate.ts";

/** Prompt-side token accounting, OpenAI's documented framing: 3 per message, 3 to prime the reply, 85 per (low-detail) image. */
const PER_MESSAGE = 3;
const PRIMING = 3;
const PER_IMAGE = 85;

const now = () => Math.floor(Date.now() / 1000);

interface ToolChoice {
  name: string;
  parameters: unknown;
}

/** The tool to call, when the request has tools and either forces one or the last user text says "use the tool". */
function chooseTool(tools: any[] | undefined, toolChoice: any, lastText: string, lastIsToolResult: boolean, flat: boolean): ToolChoice | null {
  if (!Array.isArray(tools) || !tools.length || toolChoice === "none" || lastIsToolResult) return null;
  const fn = (t: any) => (flat ? t : t.function ?? {});
  const forcedName = toolChoice?.type === "function" ? (flat ? toolChoice.name : toolChoice.function?.name) : undefined;
  const pick = forcedName ? tools.find((t) => fn(t).name === forcedName) : toolChoice === "required" || /use the tool/i.test(lastText) ? tools[0] : undefined;
  return pick ? { name: fn(pick).name, parameters: fn(pick).parameters } : null;
}

function usage(prompt: number, completion: number, cached: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: Math.min(cached, prompt), audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

const finishOf = (g: Generated) => (g.finish === "length" ? "length" : "stop");

export function openaiChat(call: StubCall): Reply {
  const { body, knobs } = call;
  if (!Array.isArray(body.messages) || !body.messages.length) throw new Error("messages: must be a non-empty array");
  let promptTokens = PRIMING + (body.tools ? countText(JSON.stringify(body.tools)) : 0);
  for (const m of body.messages) {
    promptTokens += PER_MESSAGE + countText(textOf(m.content)) + PER_IMAGE * imagesIn(m.content) + (m.tool_calls ? countText(JSON.stringify(m.tool_calls)) : 0);
  }
  const last = body.messages.at(-1);
  const lastUser = [...body.messages].reverse().find((m: any) => m.role === "user" || m.role === "tool");
  const offered = Array.isArray(body.tools) ? body.tools.map((t: any) => t.function?.name) : [];
  const priorCalls = body.messages.reduce((n: number, m: any) => n + (Array.isArray(m.tool_calls) ? m.tool_calls.length : 0), 0);
  const scripted = scriptedCall(body.messages.filter((m: any) => m.role === "system" || m.role === "user").map((m: any) => textOf(m.content)), priorCalls, offered);
  const tool = scripted ? { name: scripted.name, parameters: null, args: scripted.args } : chooseTool(body.tools, body.tool_choice, textOf(lastUser?.content), last?.role === "tool", false);
  const format = body.response_format;
  const stop = typeof body.stop === "string" ? [body.stop] : Array.isArray(body.stop) ? body.stop : undefined;
  const g = generate({
    model: call.model,
    prompt: textOf(lastUser?.content),
    script: body.messages.filter((m: any) => m.role === "system" || m.role === "user").map((m: any) => textOf(m.content)).join("\n"),
    images: imagesIn(lastUser?.content),
    maxTokens: body.max_completion_tokens ?? body.max_tokens,
    outputTokens: knobs.outputTokens,
    stop,
    json: format?.type === "json_object" ? {} : format?.type === "json_schema" ? { schema: format.json_schema?.schema } : null,
  });
  const args = tool ? JSON.stringify("args" in tool ? tool.args : sampleFromSchema(tool.parameters)) : "";
  const completion = tool ? countText(tool.name) + countText(args) : g.tokens;
  const id = `chatcmpl-stub-${call.nextId()}`;
  const created = now();
  const toolCall = tool ? { id: `call_stub_${call.nextId()}`, type: "function", function: { name: tool.name, arguments: args } } : null;
  const finish = tool ? "tool_calls" : finishOf(g);
  const u = usage(promptTokens, completion, knobs.cachedTokens);

  if (!body.stream) {
    return {
      json: {
        id,
        object: "chat.completion",
        created,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: tool ? null : g.text, refusal: null, annotations: [], ...(toolCall ? { tool_calls: [toolCall] } : {}) },
            logprobs: null,
            finish_reason: finish,
          },
        ],
        usage: u,
        system_fingerprint: null,
        service_tier: "default",
      },
    };
  }

  const withUsage = body.stream_options?.include_usage === true;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    dataFrame({ id, object: "chat.completion.chunk", created, model: body.model, system_fingerprint: null, choices, ...(withUsage ? { usage: null } : {}), ...extra });
  const choice = (delta: unknown, finishReason: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finishReason });
  const frames: string[] = [];
  if (toolCall) {
    frames.push(chunk([choice({ role: "assistant", content: null, tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name: tool!.name, arguments: "" } }] })]));
    for (const piece of piecesOf(args)) frames.push(chunk([choice({ tool_calls: [{ index: 0, function: { arguments: piece } }] })]));
  } else {
    frames.push(chunk([choice({ role: "assistant", content: "", refusal: null })]));
    for (const piece of g.pieces) frames.push(chunk([choice({ content: piece })]));
  }
  frames.push(chunk([choice({}, finish)]));
  if (withUsage) frames.push(chunk([], { usage: u }));
  frames.push("data: [DONE]\n\n");
  return { frames };
}

/** A deterministic unit-ish vector per input: the same text always embeds the same way. */
function vectorOf(input: unknown, dims: number): number[] {
  const out: number[] = [];
  let block = createHash("sha256").update(JSON.stringify(input)).digest();
  while (out.length < dims) {
    for (const byte of block) if (out.length < dims) out.push(Math.round((byte / 127.5 - 1) * 1e6) / 1e6);
    block = createHash("sha256").update(block).digest();
  }
  return out;
}

export function openaiEmbeddings(call: StubCall): Reply {
  const { body } = call;
  const input = body.input;
  const items: unknown[] = typeof input === "string" ? [input] : Array.isArray(input) && typeof input[0] === "number" ? [input] : Array.isArray(input) ? input : [];
  if (!items.length) throw new Error("input: must be a string, an array of strings, or token ids");
  const dims = typeof body.dimensions === "number" ? body.dimensions : 8;
  let tokens = 0;
  const data = items.map((item, index) => {
    tokens += typeof item === "string" ? countText(item) : Array.isArray(item) ? item.length : 0;
    const vector = vectorOf(item, dims);
    const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
    return { object: "embedding", index, embedding };
  });
  return { json: { object: "list", data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
}

/** The last turn a reply answers: the newest user message or function_call_output. */
function responsesTurn(input: unknown): { text: string; images: number; isToolResult: boolean } {
  if (typeof input === "string") return { text: input, images: 0, isToolResult: false };
  if (!Array.isArray(input)) return { text: "", images: 0, isToolResult: false };
  const item = [...input].reverse().find((i: any) => i?.role === "user" || i?.type === "function_call_output");
  if (!item) return { text: "", images: 0, isToolResult: false };
  if (item.type === "function_call_output") return { text: String(item.output ?? ""), images: 0, isToolResult: input.at(-1) === item };
  return { text: textOf(item.content), images: imagesIn(item.content), isToolResult: false };
}

export function openaiResponses(call: StubCall): Reply {
  const { body, knobs } = call;
  if (body.previous_response_id) throw new Error("previous_response_id: the stub keeps no conversation state");
  if (body.input === undefined) throw new Error("input: required");
  const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input as any[]);
  let promptTokens = PRIMING + countText(body.instructions ?? "") + (body.tools ? countText(JSON.stringify(body.tools)) : 0);
  for (const i of items) promptTokens += PER_MESSAGE + countText(textOf(i.content ?? i.output ?? "")) + PER_IMAGE * imagesIn(i.content);
  const turn = responsesTurn(body.input);
  const tool = chooseTool(body.tools, body.tool_choice, turn.text, turn.isToolResult, true);
  const format = body.text?.format;
  const g = generate({
    prompt: turn.text,
    images: turn.images,
    maxTokens: body.max_output_tokens,
    outputTokens: knobs.outputTokens,
    json: format?.type === "json_object" ? {} : format?.type === "json_schema" ? { schema: format.schema } : null,
  });
  const args = tool ? JSON.stringify("args" in tool ? tool.args : sampleFromSchema(tool.parameters)) : "";
  const outputTokens = tool ? countText(tool.name) + countText(args) : g.tokens;
  const n = call.nextId();
  const respId = `resp_stub_${n}`;
  const itemId = tool ? `fc_stub_${n}` : `msg_stub_${n}`;
  const status = !tool && g.finish === "length" ? "incomplete" : "completed";
  const cached = Math.min(knobs.cachedTokens, promptTokens);
  const usage = {
    input_tokens: promptTokens,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: promptTokens + outputTokens,
  };
  const part = { type: "output_text", text: g.text, annotations: [], logprobs: [] };
  const item = tool
    ? { id: itemId, type: "function_call", status: "completed", call_id: `call_stub_${n}`, name: tool.name, arguments: args }
    : { id: itemId, type: "message", status: "completed", role: "assistant", content: [part] };
  const created = now();
  const response = (st: string, output: unknown[], u: unknown) => ({
    id: respId,
    object: "response",
    created_at: created,
    status: st,
    background: false,
    error: null,
    incomplete_details: st === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: u,
    user: null,
    metadata: {},
  });

  if (!body.stream) return { json: response(status, [item], usage) };

  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => eventFrame(type, { type, sequence_number: seq++, ...data });
  const frames = [ev("response.created", { response: response("in_progress", [], null) }), ev("response.in_progress", { response: response("in_progress", [], null) })];
  const at = { item_id: itemId, output_index: 0 };
  if (tool) {
    frames.push(ev("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", arguments: "" } }));
    for (const piece of piecesOf(args)) frames.push(ev("response.function_call_arguments.delta", { ...at, delta: piece }));
    frames.push(ev("response.function_call_arguments.done", { ...at, arguments: args }));
  } else {
    frames.push(ev("response.output_item.added", { output_index: 0, item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] } }));
    frames.push(ev("response.content_part.added", { ...at, content_index: 0, part: { ...part, text: "" } }));
    for (const piece of g.pieces) frames.push(ev("response.output_text.delta", { ...at, content_index: 0, delta: piece, logprobs: [] }));
    frames.push(ev("response.output_text.done", { ...at, content_index: 0, text: g.text, logprobs: [] }));
    frames.push(ev("response.content_part.done", { ...at, content_index: 0, part }));
  }
  frames.push(ev("response.output_item.done", { output_index: 0, item }));
  frames.push(ev(status === "incomplete" ? "response.incomplete" : "response.completed", { response: response(status, [item], usage) }));
  return { frames };
}

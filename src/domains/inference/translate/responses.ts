/**
 * OpenAI Responses API onto Chat Completions upstreams: most OpenAI-compatible servers (vLLM,
 * Ollama, llama.cpp) have no /responses, so POST /v1/responses is served by translating the
 * request to a Chat request and the Chat reply back into a Response object. An Anthropic
 * upstream composes with the Chat ↔ Anthropic translators (Responses → Chat → Messages).
 *
 * Decisions worth knowing (each is tested):
 * - `instructions` and system/developer input messages become system messages (developer as
 *   system: many local chat templates know no developer role).
 * - function_call input items join the assistant message before them (one assistant turn with
 *   parallel tool_calls, as Chat wants); function_call_output items become tool messages.
 * - Only function tools translate; built-in tools (web_search, file_search…) need OpenAI's
 *   servers and are refused with a 400 naming the tool. Stored-state features (item
 *   references) are refused the same way; previous_response_id is refused by the route.
 * - reasoning items in the input are dropped (opaque to other servers).
 * - The Response object echoes the request's settings as OpenAI does; store is false (svc
 *   keeps no responses). Output item ids derive from the response id and the item's position,
 *   so the streamed and the non-streamed translation of one reply are identical.
 */
import { invalidField } from "../../../core/errors.ts";
import { textOnly } from "./content.ts";
import { chatFinishToResponses } from "./stop-reasons.ts";
import type {
  ChatAssistantMessage,
  ChatContentPart,
  ChatMessage,
  ChatRequest,
  ChatToolCall,
  ChatCompletion,
  ChatToolChoice,
  Json,
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesObject,
  ResponsesOutputFunctionCall,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesRequest,
  ResponsesUsage,
} from "./types.ts";
import { chatUsageToResponses } from "./usage.ts";

export interface ResponsesToChatOptions {
  /** Which field carries max_output_tokens upstream; see messages-to-chat.ts. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
}

export function responsesRequestToChat(req: ResponsesRequest, opts: ResponsesToChatOptions = {}): ChatRequest {
  const messages: ChatMessage[] = [];
  if (typeof req.instructions === "string" && req.instructions !== "") messages.push({ role: "system", content: req.instructions });
  else if (req.instructions != null && typeof req.instructions !== "string") throw invalidField("instructions", "must be a string");

  if (typeof req.input === "string") messages.push({ role: "user", content: req.input });
  else if (Array.isArray(req.input)) req.input.forEach((item, i) => addInputItem(messages, item, `input[${i}]`));
  else throw invalidField("input", "must be a string or an array of input items");
  if (!messages.some((m) => m.role !== "system")) throw invalidField("input", "must contain at least one message");

  const out: ChatRequest = { model: req.model, messages };
  if (typeof req.max_output_tokens === "number") out[opts.maxTokensField ?? "max_tokens"] = req.max_output_tokens;
  if (typeof req.temperature === "number") out.temperature = req.temperature;
  if (typeof req.top_p === "number") out.top_p = req.top_p;
  if (typeof req.user === "string") out.user = req.user;
  if (typeof req.reasoning?.effort === "string") out.reasoning_effort = req.reasoning.effort;
  if (req.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  const format = req.text?.format;
  if (format && format.type !== "text") out.response_format = responseFormatToChat(format as Json);

  if (Array.isArray(req.tools) && req.tools.length > 0) {
    out.tools = req.tools.map((tool, i) => {
      if (tool.type !== "function" || typeof tool.name !== "string") {
        throw invalidField(`tools[${i}]`, `tool type ${String(tool.type)} runs only on OpenAI's servers; only function tools can be served here`);
      }
      const fn: { name: string; description?: string; parameters?: Json; strict?: boolean } = { name: tool.name };
      if (typeof tool.description === "string") fn.description = tool.description;
      fn.parameters = (tool.parameters as Json | null | undefined) ?? { type: "object", properties: {} };
      if (typeof tool.strict === "boolean") fn.strict = tool.strict;
      return { type: "function" as const, function: fn };
    });
    if (req.tool_choice !== undefined) out.tool_choice = toolChoiceToChat(req.tool_choice);
    if (typeof req.parallel_tool_calls === "boolean") out.parallel_tool_calls = req.parallel_tool_calls;
  }
  return out;
}

function addInputItem(messages: ChatMessage[], item: ResponsesInputItem, param: string): void {
  const type = item.type ?? "message";
  if (type === "message") {
    const m = item as Extract<ResponsesInputItem, { role: string }>;
    if (m.role === "system" || m.role === "developer") messages.push({ role: "system", content: textOnly(m.content, `${param}.content`) });
    else if (m.role === "user") messages.push({ role: "user", content: userContent(m.content, `${param}.content`) });
    else if (m.role === "assistant") appendAssistant(messages, { content: textOnly(outputText(m.content), `${param}.content`) });
    else throw invalidField(`${param}.role`, "must be user, assistant, system or developer");
    return;
  }
  if (type === "function_call") {
    const c = item as Json;
    if (typeof c.call_id !== "string" || typeof c.name !== "string") throw invalidField(param, "function_call needs call_id and name");
    const args = typeof c.arguments === "string" ? c.arguments : "";
    appendAssistant(messages, { toolCall: { id: c.call_id, type: "function", function: { name: c.name, arguments: args } } });
    return;
  }
  if (type === "function_call_output") {
    const o = item as Json;
    if (typeof o.call_id !== "string") throw invalidField(`${param}.call_id`, "is required");
    messages.push({ role: "tool", tool_call_id: o.call_id, content: textOnly(outputText(o.output), `${param}.output`) });
    return;
  }
  if (type === "reasoning") return;
  if (type === "item_reference") throw invalidField(param, "item references need stored responses, which this gateway does not keep");
  throw invalidField(`${param}.type`, `input item ${String(type)} cannot be served by this model's provider`);
}

/** Assistant history parts are output_text (or refusal); read them as plain text parts. */
function outputText(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((p: Json) =>
    p?.type === "output_text" ? { type: "text", text: p.text } : p?.type === "refusal" ? { type: "text", text: p.refusal } : p,
  );
}

/**
 * Text and tool calls of one assistant turn land in one Chat assistant message: a function_call
 * joins the assistant message before it; text starts a new message once that one has calls.
 */
function appendAssistant(messages: ChatMessage[], add: { content?: string; toolCall?: ChatToolCall }): void {
  if (!add.content && !add.toolCall) return; // an empty assistant turn would be refused upstream
  const last = messages.at(-1);
  const joinLast = last?.role === "assistant" && (add.toolCall !== undefined || !last.tool_calls?.length);
  let target: ChatAssistantMessage;
  if (joinLast) target = last;
  else {
    target = { role: "assistant", content: null };
    messages.push(target);
  }
  if (add.content) target.content = (typeof target.content === "string" ? target.content : "") + add.content;
  if (add.toolCall) target.tool_calls = [...(target.tool_calls ?? []), add.toolCall];
}

function userContent(content: unknown, param: string): string | ChatContentPart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalidField(param, "must be a string or an array of content parts");
  return (content as ResponsesInputContent[]).map((part, i): ChatContentPart => {
    const p = `${param}[${i}]`;
    const x = part as Json;
    if (x.type === "input_text" && typeof x.text === "string") return { type: "text", text: x.text };
    if (x.type === "input_image") {
      if (typeof x.image_url !== "string") throw invalidField(p, "only image_url images can be served here (file_id needs the OpenAI Files API)");
      return { type: "image_url", image_url: { url: x.image_url, ...(typeof x.detail === "string" ? { detail: x.detail } : {}) } };
    }
    if (x.type === "input_file") {
      if (typeof x.file_data !== "string") throw invalidField(p, "only inline file_data can be served here");
      return { type: "file", file: { file_data: x.file_data, ...(typeof x.filename === "string" ? { filename: x.filename } : {}) } };
    }
    throw invalidField(`${p}.type`, `content part ${String(x.type)} cannot be served by this model's provider`);
  });
}

function toolChoiceToChat(choice: ResponsesRequest["tool_choice"]): ChatToolChoice {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (typeof choice === "object" && choice?.type === "function" && typeof choice.name === "string") {
    return { type: "function", function: { name: choice.name } };
  }
  throw invalidField("tool_choice", "must be auto, none, required or {type:'function', name}");
}

function responseFormatToChat(format: Json): ChatRequest["response_format"] {
  if (format.type === "json_object") return { type: "json_object" };
  if (format.type === "json_schema") {
    if (typeof format.name !== "string") throw invalidField("text.format.name", "is required for json_schema");
    const spec: Json = { name: format.name, schema: format.schema ?? {} };
    if (typeof format.description === "string") spec.description = format.description;
    if (typeof format.strict === "boolean") spec.strict = format.strict;
    return { type: "json_schema", json_schema: spec as { name: string } };
  }
  throw invalidField("text.format.type", `${String(format.type)} is not supported; use text, json_object or json_schema`);
}

export interface ResponsesReplyOptions {
  /** The response id the client sees (resp_…); output item ids derive from it. */
  id: string;
  /** Unix seconds when the response was created, from the caller's clock. */
  createdAt: number;
  /** Unix seconds when it completed; defaults to createdAt. */
  completedAt?: number;
  /** The model name the client asked for; defaults to what the upstream reported. */
  model?: string;
  /** The client's request, whose settings the Response object echoes. */
  request: ResponsesRequest;
}

/** The id of the output item at `outputIndex`: msg_… for messages, fc_… for function calls. */
export const outputItemId = (responseId: string, kind: "message" | "function_call", outputIndex: number): string =>
  `${kind === "message" ? "msg" : "fc"}_${responseId.replace(/^resp_/, "")}_${outputIndex}`;

/** Deterministic call_id for an upstream tool call that came without an id. */
export const fallbackCallId = (responseId: string, toolIndex: number): string => `call_${responseId.replace(/^resp_/, "")}_${toolIndex}`;

/** A Chat Completion (first choice) as a Response: text first as one message item, then one function_call item per tool call. */
export function chatResponseToResponses(res: ChatCompletion, opts: ResponsesReplyOptions): ResponsesObject {
  const message = res.choices?.[0]?.message;
  const outcome = chatFinishToResponses(res.choices?.[0]?.finish_reason);
  const output: ResponsesOutputItem[] = [];
  const text = (typeof message?.content === "string" ? message.content : "") + (typeof message?.refusal === "string" ? message.refusal : "");
  const calls = message?.tool_calls ?? [];
  if (text !== "" || calls.length === 0) output.push(messageItem(outputItemId(opts.id, "message", 0), text, "completed"));
  calls.forEach((call, i) => {
    const id = outputItemId(opts.id, "function_call", output.length);
    output.push(functionCallItem(id, call.id || fallbackCallId(opts.id, i), call.function?.name ?? "", call.function?.arguments ?? "", "completed"));
  });
  if (outcome.status === "incomplete") output.at(-1)!.status = "incomplete";
  return responseObject(opts, {
    status: outcome.status,
    incomplete_details: outcome.incomplete_details,
    output,
    usage: chatUsageToResponses(res.usage),
    model: opts.model ?? res.model,
    completedAt: opts.completedAt ?? opts.createdAt,
  });
}

export function messageItem(id: string, text: string, status: ResponsesOutputMessage["status"]): ResponsesOutputMessage {
  return { type: "message", id, status, role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] };
}

export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  status: ResponsesOutputFunctionCall["status"],
): ResponsesOutputFunctionCall {
  return { type: "function_call", id, call_id: callId, name, arguments: args, status };
}

/** The Response object around some output, echoing the request's settings. */
export function responseObject(
  opts: ResponsesReplyOptions,
  state: {
    status: ResponsesObject["status"];
    incomplete_details: ResponsesObject["incomplete_details"];
    output: ResponsesOutputItem[];
    usage: ResponsesUsage | null;
    model: string;
    completedAt: number | null;
  },
): ResponsesObject {
  const req = opts.request;
  return {
    id: opts.id,
    object: "response",
    created_at: opts.createdAt,
    status: state.status,
    completed_at: state.status === "in_progress" ? null : state.completedAt,
    error: null,
    incomplete_details: state.incomplete_details,
    instructions: typeof req.instructions === "string" ? req.instructions : null,
    max_output_tokens: req.max_output_tokens ?? null,
    model: state.model,
    output: state.output,
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: null },
    store: false,
    temperature: req.temperature ?? null,
    text: { format: (req.text?.format as Json | undefined) ?? { type: "text" } },
    tool_choice: req.tool_choice ?? "auto",
    tools: req.tools ?? [],
    top_p: req.top_p ?? null,
    truncation: "disabled",
    usage: state.usage,
    user: req.user ?? null,
    metadata: req.metadata ?? {},
  };
}

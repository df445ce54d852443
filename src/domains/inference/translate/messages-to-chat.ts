/**
 * Anthropic Messages → OpenAI Chat Completions (an Anthropic-shape request served by an
 * OpenAI-compatible upstream: OpenAI, vLLM, Ollama, llama.cpp…), and the Chat reply back into
 * an Anthropic Message.
 *
 * Decisions worth knowing (each is tested):
 * - `system` (string or text blocks, joined with a blank line) becomes one leading system
 *   message: many local chat templates accept only one, and only first.
 * - A user turn's tool_result blocks become `tool` messages placed before the rest of that
 *   turn, since OpenAI wants tool results straight after the assistant's tool_calls. Tool
 *   messages hold text only, so images inside a tool_result move to the user message that
 *   follows; is_error has no field and is said in words ("Error: …").
 * - thinking blocks in history are dropped: Chat Completions has no place for them.
 * - top_k and thinking have no OpenAI field and are dropped (OpenAI's own API refuses unknown
 *   parameters). Anthropic server tools (web search…) cannot run elsewhere and are refused.
 * - The output limit goes in `max_tokens` by default: it is what vLLM, Ollama and llama.cpp all
 *   read; the provider adapter may ask for `max_completion_tokens` (OpenAI reasoning models).
 * - A streaming request always asks for stream_options.include_usage, because metering needs
 *   the upstream's usage and Anthropic clients expect it in message_delta.
 */
import { invalidField } from "../../../core/errors.ts";
import { anthropicDocumentToChat, anthropicImageToChat, parseToolArguments, stringifyToolInput } from "./content.ts";
import { chatFinishToAnthropic } from "./stop-reasons.ts";
import type {
  AnthContentBlock,
  AnthImageBlock,
  AnthMessage,
  AnthMessageParam,
  AnthToolResultBlock,
  ChatCompletion,
  ChatContentPart,
  ChatMessage,
  ChatRequest,
  ChatToolCall,
  ChatToolChoice,
  Json,
  MessagesRequest,
} from "./types.ts";
import { chatUsageToAnthropic } from "./usage.ts";

export interface MessagesToChatOptions {
  /** Which field carries the output limit upstream; see the note above. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
}

export function messagesRequestToChat(req: MessagesRequest, opts: MessagesToChatOptions = {}): ChatRequest {
  if (!Array.isArray(req.messages) || req.messages.length === 0) throw invalidField("messages", "must be a non-empty array");
  const messages: ChatMessage[] = [];
  const system = systemText(req.system, "system");
  if (system !== "") messages.push({ role: "system", content: system });
  req.messages.forEach((m, i) => messages.push(...turnToChat(m, `messages[${i}]`)));

  const out: ChatRequest = { model: req.model, messages };
  if (typeof req.max_tokens === "number") out[opts.maxTokensField ?? "max_tokens"] = req.max_tokens;
  if (typeof req.temperature === "number") out.temperature = req.temperature;
  if (typeof req.top_p === "number") out.top_p = req.top_p;
  if (Array.isArray(req.stop_sequences) && req.stop_sequences.length > 0) out.stop = req.stop_sequences;
  if (req.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  const user = req.metadata?.user_id;
  if (typeof user === "string" && user !== "") out.user = user;

  if (Array.isArray(req.tools) && req.tools.length > 0) {
    out.tools = req.tools.map((tool, i) => {
      if (tool.type != null && tool.type !== "custom") {
        throw invalidField(`tools[${i}]`, `server tool ${String(tool.type)} only runs on Anthropic; this model's provider cannot serve it`);
      }
      if (typeof tool.name !== "string") throw invalidField(`tools[${i}].name`, "is required");
      const fn: { name: string; description?: string; parameters?: Json } = { name: tool.name };
      if (typeof tool.description === "string") fn.description = tool.description;
      fn.parameters = tool.input_schema ?? { type: "object", properties: {} };
      return { type: "function" as const, function: fn };
    });
    const choice = req.tool_choice;
    if (choice) {
      const mapped = toolChoiceToChat(choice);
      if (mapped !== undefined) out.tool_choice = mapped;
      if ("disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
    }
  }
  return out;
}

function systemText(system: MessagesRequest["system"], param: string): string {
  if (system == null) return "";
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) throw invalidField(param, "must be a string or an array of text blocks");
  return system
    .map((b, i) => {
      if (b?.type !== "text" || typeof b.text !== "string") throw invalidField(`${param}[${i}]`, "only text blocks are allowed in a system prompt");
      return b.text;
    })
    .join("\n\n");
}

function turnToChat(m: AnthMessageParam, param: string): ChatMessage[] {
  if (m.role === "system") return [{ role: "system", content: systemText(m.content as MessagesRequest["system"], `${param}.content`) }];
  if (m.role === "assistant") return assistantToChat(m.content, `${param}.content`);
  if (m.role === "user") return userToChat(m.content, `${param}.content`);
  throw invalidField(`${param}.role`, "must be user or assistant");
}

function userToChat(content: AnthMessageParam["content"], param: string): ChatMessage[] {
  if (typeof content === "string") return [{ role: "user", content }];
  if (!Array.isArray(content)) throw invalidField(param, "must be a string or an array of content blocks");
  const toolMessages: ChatMessage[] = [];
  const parts: ChatContentPart[] = [];
  content.forEach((block, i) => {
    const p = `${param}[${i}]`;
    if (block.type === "tool_result") {
      const { text, images } = toolResultToChat(block as AnthToolResultBlock, p);
      toolMessages.push({ role: "tool", tool_call_id: (block as AnthToolResultBlock).tool_use_id, content: text });
      parts.push(...images);
    } else parts.push(userBlockToChat(block, p));
  });
  if (parts.length === 0) return toolMessages;
  // One text part reads as a plain string, which every OpenAI-compatible server accepts.
  const only = parts.length === 1 && parts[0]!.type === "text" ? (parts[0] as { text: string }).text : undefined;
  return [...toolMessages, { role: "user", content: only ?? parts }];
}

function userBlockToChat(block: AnthContentBlock, param: string): ChatContentPart {
  if (block.type === "text" && typeof block.text === "string") return { type: "text", text: block.text };
  if (block.type === "image") return anthropicImageToChat(block as AnthImageBlock, param);
  if (block.type === "document") return anthropicDocumentToChat(block as Json, param);
  throw invalidField(`${param}.type`, `content block ${block.type} cannot be sent to this model's provider`);
}

function toolResultToChat(block: AnthToolResultBlock, param: string): { text: string; images: ChatContentPart[] } {
  if (typeof block.tool_use_id !== "string") throw invalidField(`${param}.tool_use_id`, "is required");
  let text = "";
  const images: ChatContentPart[] = [];
  if (typeof block.content === "string") text = block.content;
  else if (Array.isArray(block.content)) {
    block.content.forEach((inner, j) => {
      const p = `${param}.content[${j}]`;
      if (inner.type === "text" && typeof inner.text === "string") text += inner.text;
      else if (inner.type === "image") images.push(anthropicImageToChat(inner as AnthImageBlock, p));
      else throw invalidField(`${p}.type`, `tool_result content ${inner.type} cannot be sent to this model's provider`);
    });
  }
  if (block.is_error === true && !/^error\b/i.test(text)) text = `Error: ${text}`;
  return { text, images };
}

function assistantToChat(content: AnthMessageParam["content"], param: string): ChatMessage[] {
  if (typeof content === "string") return content === "" ? [] : [{ role: "assistant", content }];
  if (!Array.isArray(content)) throw invalidField(param, "must be a string or an array of content blocks");
  let text = "";
  const toolCalls: ChatToolCall[] = [];
  content.forEach((block, i) => {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "tool_use") {
      const b = block as { id: string; name: string; input: unknown };
      toolCalls.push({ id: b.id, type: "function", function: { name: b.name, arguments: stringifyToolInput(b.input) } });
    } else if (block.type !== "thinking" && block.type !== "redacted_thinking") {
      throw invalidField(`${param}[${i}].type`, `content block ${block.type} cannot be sent to this model's provider`);
    }
  });
  if (text === "" && toolCalls.length === 0) return [];
  return [{ role: "assistant", content: text === "" ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }];
}

function toolChoiceToChat(choice: NonNullable<MessagesRequest["tool_choice"]>): ChatToolChoice | undefined {
  switch (choice.type) {
    case "auto":
      return "auto";
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return { type: "function", function: { name: choice.name } };
    default:
      throw invalidField("tool_choice.type", "must be auto, any, tool or none");
  }
}

export interface MessagesReplyOptions {
  /** The message id the client sees (msg_…). */
  id: string;
  /** The model name the client asked for; defaults to what the upstream reported. */
  model?: string;
}

/**
 * A Chat Completion (first choice) as an Anthropic Message. Text and refusal become one text
 * block, tool_calls become tool_use blocks with parsed input. A tool call without an id (some
 * local servers) gets one derived from the message id so the client can answer it.
 */
export function chatResponseToMessages(res: ChatCompletion, opts: MessagesReplyOptions): AnthMessage {
  const choice = res.choices?.[0];
  const content: AnthContentBlock[] = [];
  const message = choice?.message;
  const text = (typeof message?.content === "string" ? message.content : "") + (typeof message?.refusal === "string" ? message.refusal : "");
  if (text !== "") content.push({ type: "text", text });
  (message?.tool_calls ?? []).forEach((call, i) => {
    content.push({
      type: "tool_use",
      id: call.id || toolUseId(opts.id, i),
      name: call.function?.name ?? "",
      input: parseToolArguments(call.function?.arguments),
    });
  });
  return {
    id: opts.id,
    type: "message",
    role: "assistant",
    model: opts.model ?? res.model,
    content,
    stop_reason: chatFinishToAnthropic(choice?.finish_reason, (message?.tool_calls ?? []).length > 0),
    stop_sequence: null,
    usage: chatUsageToAnthropic(res.usage),
  };
}

/** Deterministic stand-in id for an upstream tool call that came without one. */
export const toolUseId = (messageId: string, index: number): string => `toolu_${messageId.replace(/^msg_/, "")}_${index}`;

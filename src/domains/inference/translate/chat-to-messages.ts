/**
 * OpenAI Chat Completions → Anthropic Messages (a Chat-shape request served by an Anthropic
 * upstream), and the Anthropic reply back into a Chat Completion.
 *
 * Decisions worth knowing (each is tested):
 * - system and developer messages, wherever they appear, become the top-level `system`, joined
 *   in order with a blank line; Anthropic has no mid-conversation system turn to put them in.
 * - Anthropic wants alternating turns, so consecutive same-role messages are merged; tool
 *   messages become user `tool_result` blocks and are moved to the front of their user turn,
 *   which Anthropic requires. Empty messages are dropped (Anthropic refuses empty content).
 * - max_completion_tokens, else max_tokens, else the model's max output (Anthropic requires it).
 * - temperature is clamped to Anthropic's 0–1 (OpenAI allows up to 2); scaling would change
 *   the meaning of the common values. Current Claude models refuse temperature and top_p
 *   together, which OpenAI clients often send (many default top_p to 1): top_p goes only
 *   when temperature is absent.
 * - response_format has no Anthropic equivalent: json_object and json_schema become a system
 *   instruction (best effort — the model is asked, not forced).
 * - Fields Anthropic cannot honour (seed, logprobs, penalties, logit_bias…) are dropped; n > 1
 *   and the deprecated functions API are refused with a 400 naming the field.
 */
import { invalidField } from "../../../core/errors.ts";
import {
  chatFileToAnthropic,
  chatImageToAnthropic,
  parseToolArguments,
  stringifyToolInput,
  textOnly,
} from "./content.ts";
import { anthropicStopToChat } from "./stop-reasons.ts";
import type {
  AnthContentBlock,
  AnthMessage,
  AnthMessageParam,
  AnthTool,
  AnthToolChoice,
  ChatAssistantMessage,
  ChatCompletion,
  ChatContentPart,
  ChatFilePart,
  ChatImagePart,
  ChatRequest,
  ChatToolCall,
  Json,
  MessagesRequest,
} from "./types.ts";
import { anthropicUsageToChat } from "./usage.ts";

export interface ChatToMessagesOptions {
  /** Used when the request sets no max_tokens: the model's max output from the catalogue. */
  defaultMaxTokens: number;
}

export function chatRequestToMessages(req: ChatRequest, opts: ChatToMessagesOptions): MessagesRequest {
  if (!Array.isArray(req.messages) || req.messages.length === 0) throw invalidField("messages", "must be a non-empty array");
  if (req.n != null && req.n !== 1) throw invalidField("n", "this model's provider returns a single choice; n must be 1");
  if (req.functions !== undefined || req.function_call !== undefined) {
    throw invalidField(req.functions !== undefined ? "functions" : "function_call", "the deprecated functions API is not supported; use tools");
  }

  const system: string[] = [];
  const turns: AnthMessageParam[] = [];
  req.messages.forEach((m, i) => {
    const param = `messages[${i}]`;
    switch (m.role) {
      case "system":
      case "developer":
        system.push(textOnly(m.content, `${param}.content`));
        break;
      case "user":
        turns.push({ role: "user", content: userContent(m.content, `${param}.content`) });
        break;
      case "assistant":
        turns.push({ role: "assistant", content: assistantBlocks(m, param) });
        break;
      case "tool":
        if (typeof m.tool_call_id !== "string") throw invalidField(`${param}.tool_call_id`, "is required on tool messages");
        turns.push({
          role: "user",
          content: [{ type: "tool_result", tool_use_id: m.tool_call_id, content: textOnly(m.content, `${param}.content`) }],
        });
        break;
      default:
        throw invalidField(`${param}.role`, `role ${String((m as Json).role)} is not supported; use system, developer, user, assistant or tool`);
    }
  });

  const instruction = responseFormatInstruction(req.response_format);
  if (instruction) system.push(instruction);

  const out: MessagesRequest = {
    model: req.model,
    messages: mergeTurns(turns),
    max_tokens: req.max_completion_tokens ?? req.max_tokens ?? opts.defaultMaxTokens,
  };
  const systemText = system.filter((s) => s !== "").join("\n\n");
  if (systemText) out.system = systemText;
  if (typeof req.temperature === "number") out.temperature = Math.min(1, Math.max(0, req.temperature));
  else if (typeof req.top_p === "number") out.top_p = req.top_p;
  if (req.stop != null) {
    const stops = (Array.isArray(req.stop) ? req.stop : [req.stop]).filter((s) => typeof s === "string" && s !== "");
    if (stops.length > 0) out.stop_sequences = stops;
  }
  if (req.stream) out.stream = true;
  if (typeof req.user === "string" && req.user !== "") out.metadata = { user_id: req.user };

  const tools = (req.tools ?? []).map(toolToAnthropic);
  if (tools.length > 0) {
    out.tools = tools;
    const choice = toolChoiceToAnthropic(req.tool_choice, req.parallel_tool_calls);
    if (choice) out.tool_choice = choice;
  }
  return out;
}

function userContent(content: unknown, param: string): string | AnthContentBlock[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalidField(param, "must be a string or an array of content parts");
  const blocks: AnthContentBlock[] = [];
  (content as ChatContentPart[]).forEach((part, i) => {
    const p = `${param}[${i}]`;
    if (part?.type === "text" && typeof part.text === "string") {
      if (part.text !== "") blocks.push({ type: "text", text: part.text });
    } else if (part?.type === "image_url") blocks.push(chatImageToAnthropic(part as ChatImagePart, p));
    else if (part?.type === "file") blocks.push(chatFileToAnthropic(part as ChatFilePart, p));
    else throw invalidField(`${p}.type`, `content part ${String(part?.type)} cannot be sent to this model's provider`);
  });
  return blocks;
}

function assistantBlocks(m: ChatAssistantMessage, param: string): AnthContentBlock[] {
  const blocks: AnthContentBlock[] = [];
  const pushText = (text: string) => {
    if (text !== "") blocks.push({ type: "text", text });
  };
  if (typeof m.content === "string") pushText(m.content);
  else if (Array.isArray(m.content)) {
    m.content.forEach((part, i) => {
      if (part.type === "text" && typeof part.text === "string") pushText(part.text);
      else if (part.type === "refusal" && typeof part.refusal === "string") pushText(part.refusal);
      else throw invalidField(`${param}.content[${i}].type`, `assistant content part ${part.type} is not supported`);
    });
  }
  if (typeof m.refusal === "string") pushText(m.refusal);
  (m.tool_calls ?? []).forEach((call: ChatToolCall, i) => {
    if (call?.type !== "function" || typeof call.function?.name !== "string") {
      throw invalidField(`${param}.tool_calls[${i}]`, "only function tool calls are supported");
    }
    blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
  });
  return blocks;
}

/**
 * Anthropic refuses two user (or two assistant) turns in a row and any empty turn: merge runs
 * of one role into one turn, drop empties, and put tool_result blocks first in each user turn.
 */
function mergeTurns(turns: AnthMessageParam[]): AnthMessageParam[] {
  const merged: AnthMessageParam[] = [];
  for (const turn of turns) {
    if (turn.content.length === 0) continue;
    const last = merged.at(-1);
    if (last && last.role === turn.role) {
      last.content = [...asBlocks(last.content), ...asBlocks(turn.content)];
    } else {
      merged.push({ role: turn.role, content: turn.content });
    }
  }
  for (const turn of merged) {
    if (turn.role === "user" && Array.isArray(turn.content)) {
      const results = turn.content.filter((b) => b.type === "tool_result");
      if (results.length > 0) turn.content = [...results, ...turn.content.filter((b) => b.type !== "tool_result")];
    }
  }
  return merged;
}

const asBlocks = (content: string | AnthContentBlock[]): AnthContentBlock[] =>
  typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : content;

function toolToAnthropic(tool: NonNullable<ChatRequest["tools"]>[number], i: number): AnthTool {
  const fn = tool.type === "function" ? (tool.function as Json | undefined) : undefined;
  if (!fn || typeof fn.name !== "string") {
    throw invalidField(`tools[${i}]`, `only function tools can be sent to this model's provider, got ${String(tool.type)}`);
  }
  const out: AnthTool = {
    name: fn.name,
    input_schema: (fn.parameters as Json | undefined) ?? { type: "object", properties: {} },
  };
  if (typeof fn.description === "string") out.description = fn.description;
  return out;
}

/**
 * auto→auto, none→none, required→any, a named function→tool. parallel_tool_calls:false has
 * no field of its own in Anthropic: it rides on the choice as disable_parallel_tool_use.
 */
function toolChoiceToAnthropic(choice: ChatRequest["tool_choice"], parallel: boolean | undefined): AnthToolChoice | undefined {
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === "auto") return parallel === false ? { type: "auto", ...noParallel } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any", ...noParallel };
  if (typeof choice === "object" && choice.type === "function") {
    const name = (choice.function as Json | undefined)?.name;
    if (typeof name === "string") return { type: "tool", name, ...noParallel };
  }
  throw invalidField("tool_choice", "must be auto, none, required or {type:'function', function:{name}} for this model's provider");
}

/** response_format → a system instruction: Anthropic has no JSON mode to switch on. */
function responseFormatInstruction(format: ChatRequest["response_format"]): string | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return "Respond with a single valid JSON object and nothing else: no prose, no code fences.";
  if (format.type === "json_schema") {
    const spec = (format as Json).json_schema as Json | undefined;
    const name = typeof spec?.name === "string" ? ` "${spec.name}"` : "";
    return (
      `Respond with a single valid JSON value and nothing else: no prose, no code fences. ` +
      `It must validate against this JSON Schema${name}: ${JSON.stringify(spec?.schema ?? {})}`
    );
  }
  throw invalidField("response_format.type", `${String(format.type)} is not supported; use text, json_object or json_schema`);
}

export interface ChatReplyOptions {
  /** The chat.completion id the client sees (chatcmpl-…). */
  id: string;
  /** Unix seconds, from the caller's clock. */
  created: number;
  /** The model name the client asked for; defaults to what the upstream reported. */
  model?: string;
}

/**
 * An Anthropic reply as a Chat Completion: text blocks concatenate into `content` (null when
 * the turn is only tool calls, as OpenAI does), tool_use blocks become tool_calls, thinking
 * blocks are dropped (Chat Completions has no field for them).
 */
export function messagesResponseToChat(res: AnthMessage, opts: ChatReplyOptions): ChatCompletion {
  let text = "";
  const toolCalls: ChatToolCall[] = [];
  for (const block of res.content ?? []) {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "tool_use") {
      const b = block as { id: string; name: string; input: unknown };
      toolCalls.push({ id: b.id, type: "function", function: { name: b.name, arguments: stringifyToolInput(b.input) } });
    }
  }
  return {
    id: opts.id,
    object: "chat.completion",
    created: opts.created,
    model: opts.model ?? res.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: anthropicStopToChat(res.stop_reason) ?? "stop",
        logprobs: null,
      },
    ],
    usage: anthropicUsageToChat(res.usage),
  };
}

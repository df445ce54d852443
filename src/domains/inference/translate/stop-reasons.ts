/**
 * Why generation stopped, in each API's words.
 *
 * Anthropic → OpenAI: end_turn and stop_sequence → stop, max_tokens → length, tool_use →
 * tool_calls. The newer Anthropic reasons map onto the nearest OpenAI meaning: refusal →
 * content_filter (the model declined, as OpenAI's filter does), model_context_window_exceeded →
 * length (output was cut by a token limit), pause_turn → stop (the turn ended; the client may
 * continue it).
 *
 * OpenAI → Anthropic: stop → end_turn, length → max_tokens, tool_calls and the legacy
 * function_call → tool_use. content_filter → end_turn: Anthropic has no filter reason, and
 * "refusal" would tell Anthropic clients the model itself declined, which an upstream filter is
 * not; the text produced so far is still delivered. OpenAI does not say which stop sequence
 * matched, so "stop" never becomes stop_sequence.
 */
import type { AnthStopReason, ChatFinishReason, ResponsesStatus } from "./types.ts";

const ANTHROPIC_TO_CHAT: Record<AnthStopReason, ChatFinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

const CHAT_TO_ANTHROPIC: Record<ChatFinishReason, AnthStopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "end_turn",
};

/** null while the message is unfinished; an unknown future reason reads as a normal stop. */
export function anthropicStopToChat(reason: string | null | undefined): ChatFinishReason | null {
  if (reason == null) return null;
  return ANTHROPIC_TO_CHAT[reason as AnthStopReason] ?? "stop";
}

/**
 * A stream that ended without any finish_reason still ended its turn: end_turn. Some
 * OpenAI-compatible servers answer tool calls with finish_reason "stop"; Anthropic agent loops
 * run tools only on stop_reason "tool_use", so a turn that made tool calls reports tool_use.
 */
export function chatFinishToAnthropic(reason: string | null | undefined, madeToolCalls = false): AnthStopReason {
  if (madeToolCalls && (reason == null || reason === "stop")) return "tool_use";
  if (reason == null) return "end_turn";
  return CHAT_TO_ANTHROPIC[reason as ChatFinishReason] ?? "end_turn";
}

export interface ResponsesOutcome {
  status: Extract<ResponsesStatus, "completed" | "incomplete">;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
}

/**
 * A Responses object has no finish_reason: a cut-off answer is status "incomplete" with the
 * reason in incomplete_details, everything else (including tool calls) is "completed".
 */
export function chatFinishToResponses(reason: string | null | undefined): ResponsesOutcome {
  if (reason === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (reason === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

/**
 * A failure in the middle of a stream, in each API's own in-stream error shape, so clients'
 * SDKs raise it as an API error instead of a parse failure:
 * - OpenAI Chat: a data line whose JSON has an `error` key (the openai SDK throws APIError);
 * - Anthropic: `event: error` with {type:"error", error:{type, message}} (the SDK throws APIError);
 * - Responses: an `error` event with code and message, sequence-numbered like the rest.
 * Error types are translated to the nearest type the receiving API documents.
 */
import type { AnthStreamEvent, ChatStreamError } from "./types.ts";

/** A failure described once, independent of any API shape. */
export interface StreamFailure {
  /** Our own snake_case type (e.g. upstream_timeout) or the upstream's. */
  type: string;
  message: string;
}

export function chatStreamError(f: StreamFailure): ChatStreamError {
  return { error: { message: f.message, type: f.type, code: null, param: null } };
}

/** Anthropic clients branch on its documented error types; anything else is api_error. */
const ANTHROPIC_TYPES: Record<string, string> = {
  rate_limit_exceeded: "rate_limit_error",
  rate_limited: "rate_limit_error",
  rate_limit_error: "rate_limit_error",
  overloaded_error: "overloaded_error",
  invalid_request_error: "invalid_request_error",
  invalid_request: "invalid_request_error",
  authentication_error: "authentication_error",
  permission_error: "permission_error",
  not_found_error: "not_found_error",
  upstream_timeout: "timeout_error",
  timeout_error: "timeout_error",
};

export function anthropicStreamError(f: StreamFailure): Extract<AnthStreamEvent, { type: "error" }> {
  return { type: "error", error: { type: ANTHROPIC_TYPES[f.type] ?? "api_error", message: f.message } };
}

/** Reads the failure out of an upstream in-stream error of either OpenAI or Anthropic shape. */
export function failureOf(payload: object): StreamFailure {
  const e = ((payload as { error?: unknown }).error ?? {}) as { type?: unknown; code?: unknown; message?: unknown };
  const type = typeof e.type === "string" ? e.type : typeof e.code === "string" ? e.code : "upstream_error";
  return { type, message: typeof e.message === "string" ? e.message : "the upstream stream failed" };
}

/**
 * The wire shapes the translators read and write: OpenAI Chat Completions, OpenAI Responses and
 * Anthropic Messages. Minimal on purpose — only the fields a translation touches are named — and
 * open (`[key: string]: unknown`) wherever a body may carry fields we do not model, so a value we
 * do not understand is never a type error and never silently typed away.
 *
 * References: the `openai` and `@anthropic-ai/sdk` packages' resource types (chat/completions.ts,
 * responses/responses.ts, messages/messages.ts), which mirror the published API references.
 */

export type Json = Record<string, unknown>;

// ───────────────────────────── OpenAI Chat Completions ─────────────────────────────

export interface ChatTextPart {
  type: "text";
  text: string;
  [key: string]: unknown;
}

export interface ChatImagePart {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" | string };
  [key: string]: unknown;
}

export interface ChatFilePart {
  type: "file";
  file: { file_data?: string; file_id?: string; filename?: string };
  [key: string]: unknown;
}

export interface ChatRefusalPart {
  type: "refusal";
  refusal: string;
  [key: string]: unknown;
}

/** Any content part; input_audio and future kinds arrive as `{ type: string }`. */
export type ChatContentPart = ChatTextPart | ChatImagePart | ChatFilePart | ChatRefusalPart | { type: string; [key: string]: unknown };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  [key: string]: unknown;
}

export interface ChatSystemMessage {
  role: "system" | "developer";
  content: string | ChatContentPart[];
  name?: string;
  [key: string]: unknown;
}

export interface ChatUserMessage {
  role: "user";
  content: string | ChatContentPart[];
  name?: string;
  [key: string]: unknown;
}

export interface ChatAssistantMessage {
  role: "assistant";
  content?: string | ChatContentPart[] | null;
  refusal?: string | null;
  tool_calls?: ChatToolCall[];
  name?: string;
  [key: string]: unknown;
}

export interface ChatToolMessage {
  role: "tool";
  content: string | ChatContentPart[];
  tool_call_id: string;
  [key: string]: unknown;
}

/** `role: "function"` (the deprecated functions API) is typed only so it can be refused by name. */
export interface ChatFunctionMessage {
  role: "function";
  content: string | null;
  name: string;
  [key: string]: unknown;
}

export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage | ChatFunctionMessage;

export interface ChatFunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Json; strict?: boolean | null };
  [key: string]: unknown;
}

export type ChatToolChoice =
  | "none"
  | "auto"
  | "required"
  | { type: "function"; function: { name: string } }
  | { type: string; [key: string]: unknown };

export type ChatResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; json_schema: { name: string; description?: string; schema?: Json; strict?: boolean | null } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  stop?: string | string[] | null;
  n?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean; [key: string]: unknown } | null;
  tools?: (ChatFunctionTool | { type: string; [key: string]: unknown })[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat | { type: string; [key: string]: unknown };
  user?: string;
  reasoning_effort?: string | null;
  /** Everything else (seed, logprobs, frequency_penalty, vendor extensions…) passes through. */
  [key: string]: unknown;
}

export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; audio_tokens?: number; [key: string]: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [key: string]: unknown } | null;
  [key: string]: unknown;
}

export interface ChatResponseMessage {
  role: "assistant";
  content: string | null;
  refusal: string | null;
  tool_calls?: ChatToolCall[];
  [key: string]: unknown;
}

export interface ChatChoice {
  index: number;
  message: ChatResponseMessage;
  finish_reason: ChatFinishReason | null;
  logprobs: unknown;
  [key: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: ChatChoice[];
  usage?: ChatUsage | null;
  [key: string]: unknown;
}

export interface ChatToolCallDelta {
  /** Required by the spec; some servers omit it, so readers fall back (see chat-chunk-reader.ts). */
  index?: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

export interface ChatDelta {
  role?: "assistant";
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ChatToolCallDelta[];
  [key: string]: unknown;
}

export interface ChatChunkChoice {
  index: number;
  delta: ChatDelta;
  finish_reason: ChatFinishReason | null;
  logprobs?: unknown;
  [key: string]: unknown;
}

export interface ChatChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: ChatChunkChoice[];
  usage?: ChatUsage | null;
  [key: string]: unknown;
}

/** What an OpenAI-compatible server sends as an SSE data line when a stream fails. */
export interface ChatStreamError {
  error: { message: string; type: string; code?: string | null; param?: string | null; [key: string]: unknown };
}

// ───────────────────────────── Anthropic Messages ─────────────────────────────

export interface AnthTextBlock {
  type: "text";
  text: string;
  [key: string]: unknown;
}

export type AnthImageSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: string; [key: string]: unknown };

export interface AnthImageBlock {
  type: "image";
  source: AnthImageSource;
  [key: string]: unknown;
}

export interface AnthDocumentBlock {
  type: "document";
  source: { type: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface AnthToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
  [key: string]: unknown;
}

export interface AnthToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | (AnthTextBlock | AnthImageBlock | { type: string; [key: string]: unknown })[];
  is_error?: boolean;
  [key: string]: unknown;
}

export interface AnthThinkingBlock {
  type: "thinking" | "redacted_thinking";
  [key: string]: unknown;
}

export type AnthContentBlock =
  | AnthTextBlock
  | AnthImageBlock
  | AnthDocumentBlock
  | AnthToolUseBlock
  | AnthToolResultBlock
  | AnthThinkingBlock
  | { type: string; [key: string]: unknown };

export interface AnthMessageParam {
  /** `system` entries inside `messages` exist in newer API versions; they are read as system prompts. */
  role: "user" | "assistant" | "system";
  content: string | AnthContentBlock[];
  [key: string]: unknown;
}

export interface AnthTool {
  name: string;
  description?: string;
  input_schema: Json;
  /** Absent or "custom" for client tools; anything else is an Anthropic server tool. */
  type?: string | null;
  [key: string]: unknown;
}

export type AnthToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" };

export interface MessagesRequest {
  model: string;
  messages: AnthMessageParam[];
  max_tokens: number;
  system?: string | AnthTextBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: AnthTool[];
  tool_choice?: AnthToolChoice;
  metadata?: { user_id?: string | null; [key: string]: unknown };
  [key: string]: unknown;
}

export type AnthStopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";

export interface AnthUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  [key: string]: unknown;
}

export interface AnthMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthContentBlock[];
  stop_reason: AnthStopReason | null;
  stop_sequence: string | null;
  usage: AnthUsage;
  [key: string]: unknown;
}

export type AnthStreamEvent =
  | { type: "message_start"; message: AnthMessage }
  | { type: "content_block_start"; index: number; content_block: AnthContentBlock }
  | {
      type: "content_block_delta";
      index: number;
      delta:
        | { type: "text_delta"; text: string }
        | { type: "input_json_delta"; partial_json: string }
        | { type: string; [key: string]: unknown };
    }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: AnthStopReason | null; stop_sequence: string | null; [key: string]: unknown };
      usage: Partial<AnthUsage> & { output_tokens: number };
    }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error: { type: string; message: string; [key: string]: unknown } };

// ───────────────────────────── OpenAI Responses ─────────────────────────────

export type ResponsesInputContent =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url?: string | null; file_id?: string | null; detail?: string }
  | { type: "input_file"; file_data?: string; file_id?: string | null; file_url?: string; filename?: string }
  | { type: "output_text"; text: string; [key: string]: unknown }
  | { type: "refusal"; refusal: string }
  | { type: string; [key: string]: unknown };

export interface ResponsesMessageItem {
  type?: "message";
  role: "user" | "assistant" | "system" | "developer";
  content: string | ResponsesInputContent[];
  [key: string]: unknown;
}

export interface ResponsesFunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: string;
  [key: string]: unknown;
}

export interface ResponsesFunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output: string | ResponsesInputContent[];
  [key: string]: unknown;
}

export type ResponsesInputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | { type: string; [key: string]: unknown };

export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description?: string | null;
  parameters?: Json | null;
  strict?: boolean | null;
  [key: string]: unknown;
}

export type ResponsesToolChoice =
  | "none"
  | "auto"
  | "required"
  | { type: "function"; name: string }
  | { type: string; [key: string]: unknown };

export type ResponsesTextFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Json; description?: string; strict?: boolean | null };

export interface ResponsesRequest {
  model: string;
  input: string | ResponsesInputItem[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  stream?: boolean | null;
  tools?: (ResponsesFunctionTool | { type: string; [key: string]: unknown })[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  text?: { format?: ResponsesTextFormat | { type: string; [key: string]: unknown }; [key: string]: unknown } | null;
  reasoning?: { effort?: string | null; [key: string]: unknown } | null;
  metadata?: Record<string, string> | null;
  user?: string;
  /** Needs server-side conversation state svc does not keep: the route refuses it with a 400. */
  previous_response_id?: string | null;
  [key: string]: unknown;
}

export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface ResponsesOutputMessage {
  type: "message";
  id: string;
  status: "in_progress" | "completed" | "incomplete";
  role: "assistant";
  content: ResponsesOutputText[];
}

export interface ResponsesOutputFunctionCall {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: "in_progress" | "completed" | "incomplete";
}

export type ResponsesOutputItem = ResponsesOutputMessage | ResponsesOutputFunctionCall;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesStatus = "completed" | "incomplete" | "in_progress" | "failed";

export interface ResponsesObject {
  id: string;
  object: "response";
  created_at: number;
  status: ResponsesStatus;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: ResponsesOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: string | null; summary: null };
  store: boolean;
  temperature: number | null;
  text: { format: Json };
  tool_choice: ResponsesToolChoice;
  tools: unknown[];
  top_p: number | null;
  truncation: "disabled";
  usage: ResponsesUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}

/** Every streaming event carries its type and a sequence number that rises by one per event. */
export type ResponsesStreamEvent = { type: string; sequence_number: number; [key: string]: unknown };

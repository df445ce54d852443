/**
 * POST /v1/messages (Anthropic shape) served by each provider kind.
 *
 *   anthropic kind  forwarded: every field as sent, the model renamed, the client's
 *                   anthropic-beta header passed on; the reply and the event stream as the
 *                   upstream wrote them (then the svc.receipt comment, streaming.ts)
 *   openai kind     translated to Chat Completions and back (translate/messages-to-chat.ts,
 *                   translate/stream-chat-to-anthropic.ts); message_start carries the prompt
 *                   tokens counted for the reservation, message_delta the upstream's real counts
 */
import { invalidField } from "../../core/errors.ts";
import { anthropicReplyText, chatReplyText, type Dialect, parseFrame } from "./dialect.ts";
import { estimateChat } from "./pricing.ts";
import { encodeReceiptEvent, type ReceiptEvent, type StreamTranslator } from "./streaming.ts";
import { ZERO_USAGE } from "./chat.ts";
import { ChatUpstreamStream } from "./chat-upstream-stream.ts";
import { chatResponseToMessages, messagesRequestToChat } from "./translate/messages-to-chat.ts";
import { encodeSse, encodeTypedEvent, type SseMessage } from "./translate/sse.ts";
import { ChatToAnthropicStream } from "./translate/stream-chat-to-anthropic.ts";
import { anthropicStreamError, failureOf, type StreamFailure } from "./translate/stream-errors.ts";
import type { AnthUsage, ChatCompletion, Json, MessagesRequest } from "./translate/types.ts";
import { normalizeUsage, type NormalUsage } from "./translate/usage.ts";

/** The text an Anthropic stream event adds, for counting a cut stream. */
function eventText(event: Json): string {
  if (event.type === "content_block_start") {
    const block = (event.content_block ?? {}) as Json;
    return (typeof block.text === "string" ? block.text : "") + (block.type === "tool_use" && typeof block.name === "string" ? block.name : "");
  }
  if (event.type !== "content_block_delta") return "";
  const d = (event.delta ?? {}) as Json;
  for (const key of ["text", "partial_json", "thinking"]) if (typeof d[key] === "string") return d[key] as string;
  return "";
}

/** An Anthropic upstream's event stream, forwarded event by event. */
export class MessagesPassthroughStream implements StreamTranslator {
  finished = false;
  failure: StreamFailure | null = null;
  private reported: Partial<AnthUsage> = {};
  private produced = "";
  private sawStop = false;

  constructor(private readonly provider: string) {}

  push(m: SseMessage): string {
    const event = parseFrame(this.provider, m.data);
    switch (event.type) {
      case "error":
        this.failure = failureOf(event);
        break;
      case "message_start":
        this.addUsage(((event.message ?? {}) as Json).usage);
        break;
      case "message_delta":
        this.addUsage(event.usage);
        if (((event.delta ?? {}) as Json).stop_reason) this.sawStop = true;
        break;
      case "message_stop":
        this.finished = true;
        break;
      default:
        this.produced += eventText(event);
    }
    return encodeSse(m.data, m.event);
  }

  end(): string | null {
    return this.sawStop ? encodeTypedEvent({ type: "message_stop" }) : null;
  }

  fail(f: StreamFailure): string {
    return encodeTypedEvent(anthropicStreamError(f));
  }

  usage(): NormalUsage {
    return normalizeUsage({ cache_read_input_tokens: 0, ...this.reported }) ?? ZERO_USAGE;
  }

  producedText(): string {
    return this.produced;
  }

  trailer(r: ReceiptEvent): string {
    return encodeReceiptEvent(r);
  }

  /** Anthropic's counts are running totals: a later value replaces an earlier one. */
  private addUsage(usage: unknown): void {
    if (!usage || typeof usage !== "object") return;
    for (const [k, v] of Object.entries(usage)) if (typeof v === "number") (this.reported as Record<string, number>)[k] = v;
  }
}

export const messagesDialect: Dialect = {
  api: "messages",
  modelType: "chat",
  check(body) {
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalidField("messages", "must be a non-empty array");
    const max = body.max_tokens;
    if (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1) throw invalidField("max_tokens", "is required: a positive integer");
  },
  estimate: (model, body, count) => estimateChat(model, body, count),
  serves: () => true,
  upstream(provider, call) {
    const body = call.body as MessagesRequest;
    if (provider.kind === "anthropic") return { endpoint: "messages", body: { ...body, model: call.model.upstream }, headers: call.forwardHeaders };
    return { endpoint: "chat", body: messagesRequestToChat({ ...body, model: call.model.upstream }) };
  },
  reply(provider, json, text, call) {
    if (provider.kind === "anthropic") return { body: text, usage: normalizeUsage(json.usage), produced: () => anthropicReplyText(json) };
    const message = chatResponseToMessages(json as ChatCompletion, { id: call.id, model: call.model.id });
    return { body: JSON.stringify(message), usage: normalizeUsage(json.usage), produced: () => chatReplyText(json) };
  },
  stream(provider, call) {
    if (provider.kind === "anthropic") return new MessagesPassthroughStream(provider.name);
    return new ChatUpstreamStream(provider.name, new ChatToAnthropicStream({ id: call.id, model: call.model.id, inputTokens: call.promptTokens }));
  },
};

/**
 * POST /v1/chat/completions served by each provider kind.
 *
 *   openai kind     forwarded (translate/passthrough.ts): every field as sent, the model renamed,
 *                   stream_options.include_usage always asked for; the reply and the stream
 *                   exactly as the upstream wrote them, except the usage-only chunk when the
 *                   client did not ask for usage, and `data: [DONE]`, which svc sends itself
 *                   after settling, preceded by the svc.receipt comment (streaming.ts)
 *   anthropic kind  translated to Messages and back (translate/chat-to-messages.ts,
 *                   translate/stream-anthropic-to-chat.ts); max_tokens, when the client sets
 *                   none, is the output the call reserved
 */
import { invalidField } from "../../core/errors.ts";
import { anthropicReplyText, chatReplyText, type Dialect, parseFrame } from "./dialect.ts";
import { estimateChat } from "./pricing.ts";
import { encodeReceiptEvent, type ReceiptEvent, type StreamTranslator } from "./streaming.ts";
import { chatRequestToMessages, messagesResponseToChat } from "./translate/chat-to-messages.ts";
import { chatPassthrough, isUsageOnlyChunk } from "./translate/passthrough.ts";
import { CHAT_DONE, encodeChatChunk, encodeSse, type SseMessage } from "./translate/sse.ts";
import { AnthropicToChatStream } from "./translate/stream-anthropic-to-chat.ts";
import { chatStreamError, failureOf, type StreamFailure } from "./translate/stream-errors.ts";
import type { AnthMessage, AnthStreamEvent, ChatChunk, ChatRequest, ChatStreamError, ChatUsage, Json } from "./translate/types.ts";
import { normalizeUsage, type NormalUsage, streamUsageRequested } from "./translate/usage.ts";

export const ZERO_USAGE: NormalUsage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };

/** The text a chat chunk adds (content, refusal, tool names and arguments), for counting a cut stream. */
export function chunkText(chunk: ChatChunk): string {
  let out = "";
  for (const choice of chunk.choices ?? []) {
    const d = choice.delta ?? {};
    if (typeof d.content === "string") out += d.content;
    if (typeof d.refusal === "string") out += d.refusal;
    for (const call of d.tool_calls ?? []) out += (call.function?.name ?? "") + (call.function?.arguments ?? "");
  }
  return out;
}

/** The receipt comes just before [DONE], so a client that stops reading at [DONE] has it. */
const chatTrailer = (r: ReceiptEvent) => encodeReceiptEvent(r) + CHAT_DONE;

/** A Chat stream from an OpenAI-compatible upstream, forwarded frame by frame. */
export class ChatPassthroughStream implements StreamTranslator {
  finished = false;
  failure: StreamFailure | null = null;
  private reported: ChatUsage | null = null;
  private produced = "";
  private sawFinish = false;

  constructor(
    private readonly provider: string,
    private readonly includeUsage: boolean,
  ) {}

  push(m: SseMessage): string {
    if (m.data.trim() === "[DONE]") {
      this.finished = true;
      return ""; // svc sends its own, after settling
    }
    const chunk = parseFrame(this.provider, m.data) as ChatChunk | ChatStreamError;
    if ("error" in chunk && chunk.error) {
      this.failure = failureOf(chunk);
      return encodeSse(m.data, m.event);
    }
    const c = chunk as ChatChunk;
    if (c.usage) this.reported = c.usage;
    this.produced += chunkText(c);
    if ((c.choices ?? []).some((choice) => choice.finish_reason)) this.sawFinish = true;
    if (!this.includeUsage && isUsageOnlyChunk(c)) return "";
    return encodeSse(m.data, m.event);
  }

  /** Some servers close without [DONE]; after a finish_reason that is still a complete answer. */
  end(): string | null {
    return this.sawFinish ? "" : null;
  }

  fail(f: StreamFailure): string {
    return encodeChatChunk(chatStreamError(f));
  }

  usage(): NormalUsage {
    return normalizeUsage(this.reported) ?? ZERO_USAGE;
  }

  producedText(): string {
    return this.produced;
  }

  trailer(r: ReceiptEvent): string {
    return chatTrailer(r);
  }
}

/** An Anthropic upstream's events as Chat chunks. */
export class AnthropicUpstreamChatStream implements StreamTranslator {
  finished = false;
  failure: StreamFailure | null = null;
  private sawStop = false;

  constructor(
    private readonly provider: string,
    private readonly inner: AnthropicToChatStream,
  ) {}

  push(m: SseMessage): string {
    const event = parseFrame(this.provider, m.data) as AnthStreamEvent;
    if (event.type === "error") this.failure = failureOf(event);
    if (event.type === "message_delta" && event.delta?.stop_reason) this.sawStop = true;
    const out = this.inner.push(event).map(encodeChatChunk).join("");
    if (event.type === "message_stop") this.finished = true;
    return out;
  }

  /** The upstream closed without message_stop: complete only if it had said why it stopped. */
  end(): string | null {
    return this.sawStop ? this.inner.push({ type: "message_stop" }).map(encodeChatChunk).join("") : null;
  }

  fail(f: StreamFailure): string {
    return this.inner.fail(f).map(encodeChatChunk).join("");
  }

  usage(): NormalUsage {
    return this.inner.usage();
  }

  producedText(): string {
    return this.inner.producedText();
  }

  trailer(r: ReceiptEvent): string {
    return chatTrailer(r);
  }
}

export const chatDialect: Dialect = {
  api: "chat",
  modelType: "chat",
  check(body) {
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalidField("messages", "must be a non-empty array");
  },
  estimate: (model, body, count) => estimateChat(model, body, count),
  serves: () => true,
  upstream(provider, call) {
    const body = call.body as ChatRequest;
    if (provider.kind === "openai") return { endpoint: "chat", body: chatPassthrough(body, call.model.upstream).body };
    return { endpoint: "messages", body: chatRequestToMessages({ ...body, model: call.model.upstream }, { defaultMaxTokens: call.outputTokens }) };
  },
  reply(provider, json, text, call) {
    if (provider.kind === "openai") return { body: text, usage: normalizeUsage(json.usage), produced: () => chatReplyText(json) };
    const chat = messagesResponseToChat(json as AnthMessage, { id: call.id, created: call.created, model: call.model.id });
    return { body: JSON.stringify(chat), usage: normalizeUsage(json.usage), produced: () => anthropicReplyText(json) };
  },
  stream(provider, call) {
    const includeUsage = streamUsageRequested(call.body as Json);
    if (provider.kind === "openai") return new ChatPassthroughStream(provider.name, includeUsage);
    return new AnthropicUpstreamChatStream(provider.name, new AnthropicToChatStream({ id: call.id, created: call.created, model: call.model.id, includeUsage }));
  },
};

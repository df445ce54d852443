/**
 * POST /v1/responses (OpenAI Responses shape) served by each provider kind. svc keeps no
 * conversation state, so previous_response_id is refused with a 400 (spec §4.3); the Response
 * objects it translates say store: false.
 *
 *   openai kind declaring supports_responses   forwarded to its /responses, model renamed
 *   other openai-kind upstreams                translated to Chat Completions and back
 *                                              (translate/responses.ts, stream-chat-to-responses.ts)
 *   anthropic kind                             Responses → Chat → Messages, and back through
 *                                              the same two steps (the Anthropic→Chat stream
 *                                              translator feeds the Chat→Responses one)
 */
import { invalidField } from "../../core/errors.ts";
import { anthropicReplyText, chatReplyText, type Dialect, parseFrame, responsesReplyText } from "./dialect.ts";
import { estimateChat } from "./pricing.ts";
import { encodeReceiptEvent, type ReceiptEvent, type StreamTranslator } from "./streaming.ts";
import { ZERO_USAGE } from "./chat.ts";
import { ChatUpstreamStream } from "./chat-upstream-stream.ts";
import { chatRequestToMessages, messagesResponseToChat } from "./translate/chat-to-messages.ts";
import { chatResponseToResponses, responsesRequestToChat } from "./translate/responses.ts";
import { encodeSse, encodeTypedEvent, type SseMessage } from "./translate/sse.ts";
import { AnthropicToChatStream } from "./translate/stream-anthropic-to-chat.ts";
import { ChatToResponsesStream } from "./translate/stream-chat-to-responses.ts";
import { failureOf, type StreamFailure } from "./translate/stream-errors.ts";
import type { AnthMessage, AnthStreamEvent, ChatChunk, ChatCompletion, ChatStreamError, Json, ResponsesRequest, ResponsesStreamEvent } from "./translate/types.ts";
import { normalizeUsage, type NormalUsage } from "./translate/usage.ts";

const encodeEvents = (events: { type: string }[]) => events.map(encodeTypedEvent).join("");

/** An upstream's own Responses event stream, forwarded event by event. */
export class ResponsesPassthroughStream implements StreamTranslator {
  finished = false;
  failure: StreamFailure | null = null;
  private reported: NormalUsage | null = null;
  private produced = "";
  private lastSeq = -1;

  constructor(private readonly provider: string) {}

  push(m: SseMessage): string {
    const event = parseFrame(this.provider, m.data);
    if (typeof event.sequence_number === "number") this.lastSeq = event.sequence_number;
    const response = (event.response ?? {}) as Json;
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
      case "response.function_call_arguments.delta":
        if (typeof event.delta === "string") this.produced += event.delta;
        break;
      case "response.completed":
      case "response.incomplete":
        this.reported = normalizeUsage(response.usage);
        this.finished = true;
        break;
      case "response.failed": {
        const error = (response.error ?? {}) as Json;
        this.failure = { type: typeof error.code === "string" ? error.code : "upstream_error", message: typeof error.message === "string" ? error.message : "the upstream's response failed" };
        break;
      }
      case "error":
        this.failure = { type: typeof event.code === "string" ? event.code : "upstream_error", message: typeof event.message === "string" ? event.message : "the upstream's stream failed" };
        break;
    }
    return encodeSse(m.data, m.event);
  }

  /** A Responses stream always ends with completed, incomplete or failed: closing before is a cut. */
  end(): string | null {
    return null;
  }

  fail(f: StreamFailure): string {
    const event: ResponsesStreamEvent = { type: "error", sequence_number: this.lastSeq + 1, code: f.type, message: f.message, param: null };
    return encodeTypedEvent(event);
  }

  usage(): NormalUsage {
    return this.reported ?? ZERO_USAGE;
  }

  producedText(): string {
    return this.produced;
  }

  trailer(r: ReceiptEvent): string {
    return encodeReceiptEvent(r);
  }
}

/** An Anthropic upstream's events as Responses events: Anthropic → Chat chunks → Responses events. */
export class AnthropicUpstreamResponsesStream implements StreamTranslator {
  finished = false;
  failure: StreamFailure | null = null;
  private sawStop = false;

  constructor(
    private readonly provider: string,
    /** includeUsage must be true: the Responses events carry the usage of its last chunk. */
    private readonly toChat: AnthropicToChatStream,
    private readonly toResponses: ChatToResponsesStream,
  ) {}

  push(m: SseMessage): string {
    const event = parseFrame(this.provider, m.data) as AnthStreamEvent;
    if (event.type === "error") this.failure = failureOf(event);
    if (event.type === "message_delta" && event.delta?.stop_reason) this.sawStop = true;
    const out = this.relay(this.toChat.push(event));
    if (event.type === "message_stop") {
      this.finished = true;
      return out + encodeEvents(this.toResponses.end());
    }
    return out;
  }

  end(): string | null {
    if (!this.sawStop) return null;
    return this.relay(this.toChat.push({ type: "message_stop" })) + encodeEvents(this.toResponses.end());
  }

  fail(f: StreamFailure): string {
    return encodeEvents(this.toResponses.fail(f));
  }

  usage(): NormalUsage {
    return this.toChat.usage();
  }

  producedText(): string {
    return this.toChat.producedText();
  }

  trailer(r: ReceiptEvent): string {
    return encodeReceiptEvent(r);
  }

  private relay(chunks: (ChatChunk | ChatStreamError)[]): string {
    let out = "";
    for (const chunk of chunks) out += encodeEvents(this.toResponses.push(chunk));
    return out;
  }
}

const passesThrough = (provider: { kind: string; adapter: { supports(e: "responses"): boolean } }) => provider.kind === "openai" && provider.adapter.supports("responses");

export const responsesDialect: Dialect = {
  api: "responses",
  modelType: "chat",
  check(body) {
    if (body.previous_response_id != null) {
      throw invalidField("previous_response_id", "is not supported: svc keeps no conversation state; send the whole conversation in `input` (earlier output items included)");
    }
    if (typeof body.input !== "string" && !Array.isArray(body.input)) throw invalidField("input", "must be a string or an array of input items");
  },
  estimate: (model, body, count) => estimateChat(model, body, count),
  serves: () => true,
  upstream(provider, call) {
    const body = { ...(call.body as ResponsesRequest), model: call.model.upstream };
    if (passesThrough(provider)) return { endpoint: "responses", body };
    const chat = responsesRequestToChat(body);
    if (provider.kind === "openai") return { endpoint: "chat", body: chat };
    return { endpoint: "messages", body: chatRequestToMessages(chat, { defaultMaxTokens: call.outputTokens }) };
  },
  reply(provider, json, text, call) {
    if (passesThrough(provider)) return { body: text, usage: normalizeUsage(json.usage), produced: () => responsesReplyText(json) };
    const opts = { id: call.id, createdAt: call.created, model: call.model.id, request: call.body as ResponsesRequest };
    if (provider.kind === "openai") {
      return { body: JSON.stringify(chatResponseToResponses(json as ChatCompletion, opts)), usage: normalizeUsage(json.usage), produced: () => chatReplyText(json) };
    }
    const chat = messagesResponseToChat(json as AnthMessage, { id: call.id, created: call.created, model: call.model.id });
    return { body: JSON.stringify(chatResponseToResponses(chat, opts)), usage: normalizeUsage(json.usage), produced: () => anthropicReplyText(json) };
  },
  stream(provider, call) {
    if (passesThrough(provider)) return new ResponsesPassthroughStream(provider.name);
    const toResponses = new ChatToResponsesStream({ id: call.id, createdAt: call.created, model: call.model.id, request: call.body as ResponsesRequest });
    if (provider.kind === "openai") return new ChatUpstreamStream(provider.name, toResponses);
    const toChat = new AnthropicToChatStream({ id: call.id, created: call.created, model: call.model.id, includeUsage: true });
    return new AnthropicUpstreamResponsesStream(provider.name, toChat, toResponses);
  },
};

/**
 * An OpenAI-compatible upstream's Chat stream, re-emitted in another dialect's typed events
 * (Anthropic for /v1/messages, Responses for /v1/responses). The dialect-specific work is the
 * chunk translator's; this holds what both routes need around it: [DONE] handling, the
 * upstream's error frames, and whether the stream finished properly.
 */
import { parseFrame } from "./dialect.ts";
import { encodeReceiptEvent, type ReceiptEvent, type StreamTranslator } from "./streaming.ts";
import { encodeTypedEvent, type SseMessage } from "./translate/sse.ts";
import { failureOf, type StreamFailure } from "./translate/stream-errors.ts";
import type { ChatChunk, ChatStreamError } from "./translate/types.ts";
import type { NormalUsage } from "./translate/usage.ts";

/** Chat chunks in, typed events out (translate/stream-chat-to-anthropic.ts, stream-chat-to-responses.ts). */
export interface ChatChunkTranslator {
  push(chunk: ChatChunk | ChatStreamError): { type: string }[];
  end(): { type: string }[];
  fail(f: StreamFailure): { type: string }[];
  usage(): NormalUsage;
  producedText(): string;
}

const encodeEvents = (events: { type: string }[]): string => events.map(encodeTypedEvent).join("");

export class ChatUpstreamStream implements StreamTranslator {
  finished = false;
  failure: StreamFailure | null = null;
  private sawFinish = false;

  constructor(
    private readonly provider: string,
    private readonly inner: ChatChunkTranslator,
  ) {}

  push(m: SseMessage): string {
    if (m.data.trim() === "[DONE]") {
      this.finished = true;
      return encodeEvents(this.inner.end());
    }
    const chunk = parseFrame(this.provider, m.data) as ChatChunk | ChatStreamError;
    if ("error" in chunk && chunk.error) this.failure = failureOf(chunk);
    else if (((chunk as ChatChunk).choices ?? []).some((c) => c.finish_reason)) this.sawFinish = true;
    return encodeEvents(this.inner.push(chunk));
  }

  /** A stream cut after its finish_reason but before [DONE] is still complete. */
  end(): string | null {
    return this.sawFinish ? encodeEvents(this.inner.end()) : null;
  }

  fail(f: StreamFailure): string {
    return encodeEvents(this.inner.fail(f));
  }

  usage(): NormalUsage {
    return this.inner.usage();
  }

  producedText(): string {
    return this.inner.producedText();
  }

  trailer(r: ReceiptEvent): string {
    return encodeReceiptEvent(r);
  }
}

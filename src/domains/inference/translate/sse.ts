/**
 * Server-sent events: reading an upstream's byte stream and writing our own.
 *
 * Parsing uses `eventsource-parser` rather than a hand-rolled splitter: SSE has enough corners
 * (CR, LF and CRLF line ends, a BOM, multi-line `data:`, comments used as keep-alives, fields
 * split across network chunks, `event:` names that persist until the blank line) that a small
 * home-grown parser tends to get one wrong, and this zero-dependency library implements the
 * WHATWG algorithm, is what the Vercel AI SDK and others build on, and is actively maintained.
 * Encoding is a few lines and stays here.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseMessage {
  /** The `event:` name, or undefined when the server sent none (OpenAI Chat streams). */
  event: string | undefined;
  data: string;
}

/**
 * Yields each event of an SSE byte stream as it completes. Comments (`: keep-alive`) and
 * `retry:` lines are dropped; a final event without its closing blank line is still delivered,
 * since a server that closes the connection right after its last `data:` line meant it.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = [];
  const parser = createParser({ onEvent: (m: EventSourceMessage) => ready.push({ event: m.event, data: m.data }) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      while (ready.length > 0) yield ready.shift()!;
    }
    // Ending the input with a blank line dispatches an event whose terminator never came.
    parser.feed(decoder.decode() + "\n\n");
    while (ready.length > 0) yield ready.shift()!;
  } finally {
    // Stopping early (the client went away, or a reader error) cancels the upstream body so
    // its connection is not left open; a finished body only needs its lock released.
    if (finished) reader.releaseLock();
    else await reader.cancel().catch(() => {});
  }
}

/**
 * One SSE event as text. Every line of `data` gets its own `data:` field, so a payload with
 * newlines survives; JSON from JSON.stringify never has raw newlines, so it stays on one line.
 */
export function encodeSse(data: string, event?: string): string {
  const head = event === undefined ? "" : `event: ${event}\n`;
  return `${head}data: ${data.split(/\r\n|\r|\n/).join("\ndata: ")}\n\n`;
}

/** An OpenAI Chat stream line: data only, no event name. */
export const encodeChatChunk = (chunk: unknown): string => encodeSse(JSON.stringify(chunk));

/** OpenAI Chat streams end with this sentinel; the SDK stops reading at it. */
export const CHAT_DONE = "data: [DONE]\n\n";

/**
 * Anthropic and Responses events: the SSE event name repeats the payload's `type`, which is
 * what both SDKs' readers dispatch on (Anthropic's reader skips `ping` and throws on `error`).
 */
export const encodeTypedEvent = (event: { type: string }): string => encodeSse(JSON.stringify(event), event.type);

/**
 * Serving an upstream's SSE stream to the client, metered: every upstream event goes through the
 * route's StreamTranslator (the same API → forwarded as sent; another API → translated), and
 * the stream ends one of three ways, each exactly once:
 *
 *   completed     the upstream sent its final event (or closed after a finish): settle on the
 *                 usage it reported, then the closing text and the receipt
 *   failed        the upstream broke off, timed out, sent an error or a frame that is not JSON,
 *                 or closed before finishing: an in-stream error in the client's API shape, and
 *                 nothing is billed (the hold is released)
 *   disconnected  the client went away: the upstream call is aborted at once and what was
 *                 produced so far is billed (billedUsage in pipeline.ts: never 0 for produced output)
 *
 * The receipt. Headers leave before the cost is known, so a stream carries its receipt as
 * its last SSE event: a COMMENT line
 *
 *   : svc.receipt {"type":"svc.receipt","receipt_id","receipt","signature","signer","cost_micro_usd","run_id"}
 *
 * Comments are ignored by every SSE parser by definition (WHATWG: a line starting with ":"),
 * so no client breaks on it — where a named event would not do: the openai SDK hands every
 * named event on to the caller and its ResponseStream helper throws on a type it does not know.
 * It comes after the API's own final event (message_stop, response.completed), and for chat
 * completions just BEFORE `data: [DONE]`, so a client that stops reading at [DONE] has it.
 * test/domains/inference/sdk.test.ts checks all three SDK readers against it; docs/inference.md
 * documents it.
 */
import { createParser } from "eventsource-parser";
import type { Settlement } from "../../core/meter.ts";
import type { Logger } from "../../core/log.ts";
import { UpstreamError } from "./providers/errors.ts";
import type { SseMessage } from "./translate/sse.ts";
import type { StreamFailure } from "./translate/stream-errors.ts";
import type { NormalUsage } from "./translate/usage.ts";

/** One route's view of one upstream stream. */
export interface StreamTranslator {
  /** One upstream event → SSE text for the client ("" when there is nothing to send). May throw an UpstreamError (a frame that is not JSON). */
  push(message: SseMessage): string;
  /** The upstream closed: the closing SSE text (before the receipt), or null when it stopped before finishing. */
  end(): string | null;
  /** The upstream sent its final event: stop reading, settle. */
  readonly finished: boolean;
  /** The upstream sent an in-stream error (already translated by push): bill nothing. */
  readonly failure: StreamFailure | null;
  /** A failure the gateway saw (cut, timeout, bad frame) as the client's in-stream error. */
  fail(f: StreamFailure): string;
  /** The upstream's usage so far (zeros until it reports). */
  usage(): NormalUsage;
  /** Text and tool arguments produced so far, for counting when the upstream's usage is missing. */
  producedText(): string;
  /** What follows the settlement: the receipt event, and [DONE] for chat. */
  trailer(receipt: ReceiptEvent): string;
}

export interface ReceiptEvent {
  type: "svc.receipt";
  receipt_id: string | null;
  receipt: string | null;
  signature: string | null;
  signer: string | null;
  cost_micro_usd: number;
  run_id: string | null;
}

export const RECEIPT_EVENT = "svc.receipt";

export function receiptEvent(settlement: Settlement, runId: string | null): ReceiptEvent {
  const r = settlement.receipt;
  return {
    type: RECEIPT_EVENT,
    receipt_id: r?.id ?? null,
    receipt: r?.receipt ?? null,
    signature: r?.signature ?? null,
    signer: r?.signer ?? null,
    cost_micro_usd: settlement.cost,
    run_id: runId,
  };
}

/** The receipt as an SSE comment line (JSON has no raw newlines, so it is one line). */
export const encodeReceiptEvent = (event: ReceiptEvent): string => `: ${RECEIPT_EVENT} ${JSON.stringify(event)}\n\n`;

export interface StreamOutcomes {
  /** The upstream finished: settle on its usage (group-committed: a promise); returns the receipt event to send. */
  completed(): ReceiptEvent | Promise<ReceiptEvent>;
  /** The client went away mid-stream (the upstream call is already being aborted): settle what was produced. */
  disconnected(): void;
  /** The upstream failed mid-stream: release the hold. */
  failed(reason: StreamFailure): void;
}

export const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" } as const;

const encoder = new TextEncoder();

/** The failure an exception stands for: an UpstreamError's own type and message, else a generic upstream error. */
function failureOf(err: unknown): StreamFailure {
  if (err instanceof UpstreamError) return { type: err.type, message: err.message };
  return { type: "upstream_error", message: "the upstream's stream failed" };
}

const ENDED_EARLY: StreamFailure = { type: "upstream_error", message: "the upstream's stream ended before its final event" };

/**
 * The client's Response for an upstream SSE Response. `headers` go on it as they are (the
 * receipt itself comes in the stream). The upstream body is read only as fast as the client
 * reads (highWaterMark 0: nothing is buffered ahead of a slow client).
 */
export function serveStream(
  upstream: Response,
  translator: StreamTranslator,
  outcomes: StreamOutcomes,
  log: Logger,
  /** The client's request signal: a read that fails because the client went away is a disconnect, not an upstream failure. */
  client: AbortSignal,
  headers: Record<string, string>,
): Response {
  const reader = upstream.body!.getReader();
  const pending: SseMessage[] = [];
  const parser = createParser({ onEvent: (m) => pending.push({ event: m.event, data: m.data }) });
  const decoder = new TextDecoder();
  let open = true;

  const disconnect = () => {
    if (!open) return;
    open = false;
    // Aborts the upstream call (the adapter's stream cancels its fetch), then bills what was produced.
    reader.cancel().catch(() => {});
    try {
      outcomes.disconnected();
    } catch (err) {
      log.error("settling a disconnected stream failed", { error: err instanceof Error ? err.message : String(err) });
    }
  };

  /** After the final event the upstream closes on its own; read it to the end off the client's path. */
  const drainUpstream = () => {
    void (async () => {
      try {
        while (!(await reader.read()).done) {
          // the upstream's remains (a [DONE] after message_stop, keep-alives): nothing for the client
        }
      } catch {
        // it broke off after finishing: nothing was owed
      }
    })();
  };

  const failWith = (controller: ReadableStreamDefaultController<Uint8Array>, before: string, f: StreamFailure) => {
    open = false;
    outcomes.failed(f);
    controller.enqueue(encoder.encode(before + translator.fail(f)));
    controller.close();
    reader.cancel().catch(() => {});
  };

  const complete = async (controller: ReadableStreamDefaultController<Uint8Array>, before: string) => {
    // Closed first: a client that leaves while the settle commits is not settled a second time.
    open = false;
    // What the upstream produced goes out now; only the receipt waits for the settle to commit.
    // An upstream that answers in one burst (a cached reply, a short completion) would otherwise
    // hold the client's first byte until the commit.
    if (before) {
      try {
        controller.enqueue(encoder.encode(before));
      } catch {
        // the client went away: the settle below still bills what was produced
      }
    }
    let tail: string;
    try {
      tail = translator.trailer(await outcomes.completed());
    } catch (err) {
      // Settling failed (the database, not the upstream): the hold stays until the sweeper
      // releases it, so the client is not billed; it gets an error instead of a receipt.
      log.error("settling a stream failed", { error: err instanceof Error ? err.message : String(err) });
      tail = translator.fail({ type: "internal_error", message: "the call could not be settled; it was not billed" });
    }
    try {
      controller.enqueue(encoder.encode(tail));
      controller.close();
    } catch {
      // the client went away while the settle committed: it is settled all the same
    }
  };

  /** After the events read so far: settles or fails when the translator says the upstream finished or failed. */
  const concluded = async (controller: ReadableStreamDefaultController<Uint8Array>, out: string): Promise<boolean> => {
    if (translator.failure) {
      open = false;
      outcomes.failed(translator.failure); // push already turned it into the client's error event
      controller.enqueue(encoder.encode(out));
      controller.close();
      reader.cancel().catch(() => {});
      return true;
    }
    if (translator.finished) {
      drainUpstream();
      await complete(controller, out);
      return true;
    }
    return false;
  };

  const translatePending = (): string => {
    let out = "";
    while (pending.length > 0 && !translator.finished && !translator.failure) out += translator.push(pending.shift()!);
    return out;
  };

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const out = translatePending();
            if (await concluded(controller, out)) return;
            if (out) return controller.enqueue(encoder.encode(out));
            const { done, value } = await reader.read();
            if (!open) return; // the client went away while we waited
            if (!done) {
              parser.feed(decoder.decode(value, { stream: true }));
              continue;
            }
            parser.feed(decoder.decode() + "\n\n"); // a last event without its blank line still counts
            const rest = translatePending();
            if (await concluded(controller, rest)) return;
            const closing = translator.end();
            return closing === null ? failWith(controller, rest, ENDED_EARLY) : await complete(controller, rest + closing);
          }
        } catch (err) {
          if (!open) return;
          if (client.aborted) return disconnect();
          try {
            failWith(controller, "", failureOf(err));
          } catch {
            // the client is gone as well
          }
        }
      },
      cancel: disconnect,
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...headers } });
}

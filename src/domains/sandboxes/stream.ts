/**
 * stream: true — a run answered as Server-Sent Events while it runs:
 *
 *   event: stdout   data: {"data":"…"}      output as it is produced (UTF-8 text, split anywhere)
 *   event: stderr   data: {"data":"…"}
 *   event: exit     data: {…the run's result, as without stream, receipt included…}
 *   event: error    data: {"error":{type, message}}   instead of exit, when the sandbox failed (nothing billed)
 *
 * The reservation is made before the stream starts, so a refusal (402 and the rest) is an
 * ordinary JSON error. Headers leave before the cost is known: the receipt is in the exit
 * event (and x-svc-run-id, when there is one, in the headers). A client that goes away kills
 * the run, which is billed for the time it ran.
 */
import type { RunIO } from "./runner/index.ts";
import type { Executed, RunView } from "./execution.ts";

export const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" } as const;

const encoder = new TextEncoder();
const frame = (event: string, data: unknown): Uint8Array => encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

/**
 * The SSE response of a run. `execute` starts it with the io to stream through (its signal is
 * aborted when the client goes away) and resolves with the result; `done` runs once with it
 * (or with the error), for bookkeeping such as the Idempotency-Key.
 */
export function streamRun(
  execute: (io: RunIO) => Promise<Executed>,
  done: (outcome: { executed: Executed } | { error: unknown }) => void,
  headers: Record<string, string>,
  /** The error event's body for a run that failed (the gateway's error body: {error: {type, message, …}}). */
  onError: (err: unknown) => { error: Record<string, unknown> },
): Response {
  const abort = new AbortController();
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (bytes: Uint8Array) => {
        if (!open) return;
        try {
          controller.enqueue(bytes);
        } catch {
          open = false;
        }
      };
      const out = new TextDecoder();
      const err = new TextDecoder();
      const io: RunIO = {
        onStdout: (chunk) => {
          const text = out.decode(chunk, { stream: true });
          if (text) send(frame("stdout", { data: text }));
        },
        onStderr: (chunk) => {
          const text = err.decode(chunk, { stream: true });
          if (text) send(frame("stderr", { data: text }));
        },
        signal: abort.signal,
      };
      execute(io).then(
        (executed) => {
          const tailOut = out.decode();
          const tailErr = err.decode();
          if (tailOut) send(frame("stdout", { data: tailOut }));
          if (tailErr) send(frame("stderr", { data: tailErr }));
          send(frame("exit", executed.view));
          done({ executed });
          close(controller);
        },
        (error: unknown) => {
          send(frame("error", onError(error)));
          done({ error });
          close(controller);
        },
      );
    },
    cancel() {
      open = false;
      abort.abort();
    },
  });
  const close = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!open) return;
    open = false;
    try {
      controller.close();
    } catch {
      // the client is gone
    }
  };
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...headers } });
}

/** A stored result (Idempotency-Key replay) as the same event sequence, all at once. */
export function replayStream(view: RunView): Response {
  const parts: Uint8Array[] = [];
  if (view.stdout) parts.push(frame("stdout", { data: view.stdout }));
  if (view.stderr) parts.push(frame("stderr", { data: view.stderr }));
  parts.push(frame("exit", view));
  return new Response(new Blob(parts), { status: 200, headers: { ...SSE_HEADERS, "idempotent-replayed": "true" } });
}

/**
 * One upstream HTTP call, shared by every adapter kind: timeouts, cancellation, and turning
 * whatever goes wrong into an UpstreamError.
 *
 * Timeouts. `timeoutMs` bounds the whole call, streaming included. Bun's fetch has no separate
 * connect timeout, so `connectTimeoutMs` bounds the wait for the response HEADERS, and only on
 * streaming calls: a streaming upstream answers with headers at once, so a host that does not is
 * unreachable or stuck; a non-streaming upstream sends nothing until it has generated the whole
 * answer, so there the total timeout is the only honest bound. Bun's own idle timer (5 minutes by
 * default) is switched off, or a long generation would be cut before our deadline.
 *
 * A non-streaming body is read in full before request() resolves, so its failures surface here;
 * a streaming body is wrapped so that a cut or a timeout mid-stream raises an UpstreamError from
 * the stream, and cancelling the stream (the client went away) aborts the upstream call.
 */
import { fromStatus, fromTransport } from "./errors.ts";
import type { ProviderSpec, UpstreamRequestOptions } from "./types.ts";

export interface UpstreamCall {
  provider: string;
  url: string;
  headers: Record<string, string>;
  /** POST (default) or GET. */
  method?: "POST" | "GET";
  /** A JSON body, a multipart form (fetch sets its content type), or none (GET). */
  body: object | FormData | null;
  stream: boolean;
  signal?: AbortSignal;
  timeoutMs: number;
  connectTimeoutMs: number | null;
  /** Strings never to repeat in an error (the credential). */
  secrets: readonly string[];
}

/** The most of an error body that is read: enough for any upstream's message. */
const MAX_ERROR_BODY = 64 * 1024;
/** Hop-by-hop or already-undone encodings: fetch has decompressed the body and the length may no longer hold. */
const DROPPED_HEADERS = ["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"];

function cleanHeaders(upstream: Headers): Headers {
  const headers = new Headers(upstream);
  for (const h of DROPPED_HEADERS) headers.delete(h);
  return headers;
}

/** Headers svc sets itself; configured and per-call headers cannot replace them. */
const RESERVED = /^(authorization|x-api-key|anthropic-version|content-type|content-length|host|accept)$/i;

/**
 * The headers of one call: the provider's configured extras, then the call's own (neither may
 * touch a reserved header), then what the adapter sets (content type, authentication).
 */
function callHeaders(configured: Record<string, string>, perCall: Record<string, string> | undefined, own: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const extra of [configured, perCall ?? {}]) {
    for (const [k, v] of Object.entries(extra)) if (!RESERVED.test(k)) out[k.toLowerCase()] = v;
  }
  return { ...out, ...own };
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // a body that breaks off still has a status worth reporting
  } finally {
    reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY));
}

export async function callUpstream(call: UpstreamCall): Promise<Response> {
  const { provider, signal } = call;
  signal?.throwIfAborted();
  const abort = new AbortController();
  let timedOut: "total" | "headers" | null = null;
  const totalTimer = setTimeout(() => {
    timedOut = "total";
    abort.abort();
  }, call.timeoutMs);
  let headersTimer: ReturnType<typeof setTimeout> | undefined =
    call.stream && call.connectTimeoutMs !== null
      ? setTimeout(() => {
          timedOut = "headers";
          abort.abort();
        }, call.connectTimeoutMs)
      : undefined;
  const onCallerAbort = () => abort.abort(signal!.reason);
  signal?.addEventListener("abort", onCallerAbort, { once: true });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(totalTimer);
    clearTimeout(headersTimer);
    signal?.removeEventListener("abort", onCallerAbort);
  };
  const timeoutSecs = () => (timedOut === "headers" ? call.connectTimeoutMs! : call.timeoutMs) / 1000;
  /** The caller's own abort is passed through as is: it is not an upstream failure. */
  const failure = (err: unknown, phase: "connect" | "body") => {
    finish();
    if (signal?.aborted) return signal.reason;
    return fromTransport(provider, err, phase, timedOut, timeoutSecs());
  };

  let res: Response;
  try {
    res = await fetch(call.url, {
      method: call.method ?? "POST",
      headers: call.headers,
      body: call.body === null ? undefined : call.body instanceof FormData ? call.body : JSON.stringify(call.body),
      signal: abort.signal,
      // A redirect is answered as an upstream error rather than followed with the credential attached.
      redirect: "manual",
      timeout: false,
    });
  } catch (err) {
    throw failure(err, "connect");
  }
  clearTimeout(headersTimer);
  headersTimer = undefined;

  if (!res.ok) {
    const text = await readCapped(res);
    if (timedOut || signal?.aborted) throw failure(null, "body");
    finish();
    throw fromStatus(provider, res.status, res.headers, text, call.secrets);
  }

  if (!call.stream || !res.body) {
    let body: ArrayBuffer;
    try {
      body = await res.arrayBuffer();
    } catch (err) {
      throw failure(err, "body");
    }
    finish();
    return new Response(body, { status: res.status, statusText: res.statusText, headers: cleanHeaders(res.headers) });
  }

  const reader = res.body.getReader();
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish();
            controller.close();
          } else controller.enqueue(value);
        } catch (err) {
          controller.error(failure(err, "body"));
        }
      },
      cancel(reason) {
        finish();
        abort.abort(reason);
        return reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status: res.status, statusText: res.statusText, headers: cleanHeaders(res.headers) });
}

/**
 * An adapter's POST of a JSON body: everything but the URL and the authentication headers is
 * the same for every kind, so a new kind only says where it posts and how it authenticates.
 */
export function postJson(spec: ProviderSpec, apiKey: string | null, url: string, body: object, options: UpstreamRequestOptions, auth: Record<string, string>): Promise<Response> {
  const stream = options.stream ?? false;
  return callUpstream({
    provider: spec.name,
    url,
    headers: callHeaders(spec.headers, options.headers, {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
      ...auth,
    }),
    body,
    stream,
    signal: options.signal,
    timeoutMs: spec.timeoutMs,
    connectTimeoutMs: spec.connectTimeoutMs,
    secrets: apiKey ? [apiKey] : [],
  });
}

/**
 * A media adapter's call: a GET, a JSON POST or a multipart POST (the OpenAI Videos API takes
 * multipart), always read in full, with the same timeouts and error mapping as postJson.
 */
export function mediaCall(spec: ProviderSpec, apiKey: string | null, url: string, init: { method: "GET" | "POST"; body: object | FormData | null; accept: string }, options: UpstreamRequestOptions, auth: Record<string, string>): Promise<Response> {
  const own: Record<string, string> = { accept: init.accept, ...auth };
  if (init.body !== null && !(init.body instanceof FormData)) own["content-type"] = "application/json";
  return callUpstream({
    provider: spec.name,
    url,
    method: init.method,
    headers: callHeaders(spec.headers, options.headers, own),
    body: init.body,
    stream: false,
    signal: options.signal,
    timeoutMs: spec.timeoutMs,
    connectTimeoutMs: spec.connectTimeoutMs,
    secrets: apiKey ? [apiKey] : [],
  });
}

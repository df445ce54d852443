/**
 * A local stand-in for the LLM providers svc calls (the only stand-in the suite allows): a real
 * HTTP server on 127.0.0.1 speaking OpenAI's and Anthropic's wire formats, streaming included.
 *
 *   POST /v1/chat/completions   OpenAI chat (stream, stream_options.include_usage, tools, response_format)
 *   POST /v1/embeddings         OpenAI embeddings (float or base64)
 *   POST /v1/responses          OpenAI Responses, plain and streamed (unless started with responses: false)
 *   POST /v1/messages           Anthropic Messages, plain and streamed (checks x-api-key or Bearer, and anthropic-version)
 *
 * Point an `openai` provider at `openaiBaseUrl` and an `anthropic` one at `anthropicBaseUrl`.
 * Replies are deterministic with real token counts (upstream-generate.ts). Tools: when tools are
 * given and the last user text contains "use the tool" (or tool_choice forces one), the reply
 * is a call of the first (or the forced) tool with arguments built from its schema. Scripted
 * calls for agent loops: `[[call NAME {args}]]` / `[[loop NAME {args}]]` in the system or user
 * text (upstream-generate.ts scriptedCall). Scripted replies: `[[say TEXT]]` in the system or user
 * text answers exactly TEXT, `[[say@MODEL TEXT]]` only for that upstream model (saidText).
 *
 * Behaviours, per request: header `x-stub-behaviour: B`, or the model name's suffix `…@B`
 * (so a model entry in svc.toml can pin one):
 *   ok          the default
 *   slow        wait x-stub-delay-ms (default 300) before answering, then x-stub-chunk-delay-ms
 *               (default 20) between stream chunks
 *   fail        500 with the API's error body
 *   rate_limit  429 with Retry-After: x-stub-retry-after (default 7)
 *   reject      400 invalid_request_error; message from x-stub-reject-message
 *   hang        never answers (until the client gives up or the stub stops)
 *   cut         sends x-stub-cut-after stream frames (default 3), or half a JSON body, then drops
 *               the connection
 *   bad_json    200 whose JSON body (or one stream frame) is not JSON
 * Other knobs: x-stub-output-tokens N (reply with exactly N tokens), x-stub-cached-tokens N
 * (report N prompt tokens as cache reads), x-stub-ping: 1 (Anthropic streams send a ping
 * after the first content_block_start, as the real API does).
 *
 * Every request is recorded (method, path, lowercased headers, parsed body, and whether it
 * completed or the client went away), so tests can assert what the gateway sent. Stopped after
 * the test file by cleanup.
 */
import { onCleanup } from "./cleanup.ts";
import { anthropicMessages } from "./upstream-anthropic.ts";
import { sleep } from "./upstream-generate.ts";
import { openaiChat, openaiEmbeddings, openaiResponses } from "./upstream-openai.ts";

export type Behaviour = "ok" | "slow" | "fail" | "rate_limit" | "reject" | "hang" | "cut" | "bad_json";
const BEHAVIOURS: readonly Behaviour[] = ["ok", "slow", "fail", "rate_limit", "reject", "hang", "cut", "bad_json"];

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when it was not JSON. */
  body: any;
  behaviour: Behaviour;
  /** The whole answer was sent. */
  completed: boolean;
  /** The client went away before the answer was complete. */
  aborted: boolean;
}

export interface Knobs {
  delayMs: number;
  chunkDelayMs: number;
  retryAfter: string;
  rejectMessage: string;
  cutAfter: number;
  outputTokens: number | undefined;
  cachedTokens: number;
  ping: boolean;
}

/** One request as a handler sees it. */
export interface StubCall {
  body: any;
  /** The model name without its @behaviour suffix. */
  model: string;
  knobs: Knobs;
  /** A per-stub counter for ids (chatcmpl-stub-1, msg_stub_2, …). */
  nextId(): number;
}

/** What a handler answers: a JSON body, or SSE frames (each a complete "event:/data:" block). */
export type Reply = { json: unknown } | { frames: string[] };

export type Dialect = "openai" | "anthropic";

export interface UpstreamStubOptions {
  /** When set, requests must carry it (Bearer for OpenAI routes, x-api-key for Anthropic's), else 401. */
  apiKey?: string;
  /** Serve POST /v1/responses (default true). */
  responses?: boolean;
}

export interface UpstreamStub {
  /** http://127.0.0.1:PORT */
  url: string;
  /** For an `openai` provider's base_url and the OpenAI SDK's baseURL: url + "/v1". */
  openaiBaseUrl: string;
  /** For an `anthropic` provider's base_url and the Anthropic SDK's baseURL: url. */
  anthropicBaseUrl: string;
  requests: RecordedRequest[];
  /** The newest recorded request, optionally for one path. */
  last(path?: string): RecordedRequest | undefined;
  clear(): void;
  stop(): void;
}

const encoder = new TextEncoder();
/** Before dropping a connection, time for what was sent to leave: Bun would otherwise abort a response it has not flushed yet. */
const CUT_FLUSH_MS = 20;

export function errorBody(dialect: Dialect, type: string, message: string): unknown {
  return dialect === "openai" ? { error: { message, type, param: null, code: null } } : { type: "error", error: { type, message } };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

function knobsOf(h: Headers): Knobs {
  const int = (name: string, fallback: number) => {
    const v = h.get(name);
    return v !== null && /^\d+$/.test(v) ? Number(v) : fallback;
  };
  const behaviour = h.get("x-stub-behaviour");
  return {
    delayMs: int("x-stub-delay-ms", 300),
    chunkDelayMs: int("x-stub-chunk-delay-ms", behaviour === "slow" ? 20 : 0),
    retryAfter: h.get("x-stub-retry-after") ?? "7",
    rejectMessage: h.get("x-stub-reject-message") ?? "the stub rejects this request",
    cutAfter: int("x-stub-cut-after", 3),
    outputTokens: h.get("x-stub-output-tokens") !== null ? int("x-stub-output-tokens", 0) : undefined,
    cachedTokens: int("x-stub-cached-tokens", 0),
    ping: h.get("x-stub-ping") === "1",
  };
}

function behaviourOf(h: Headers, model: unknown): { behaviour: Behaviour; model: string } {
  const name = typeof model === "string" ? model : "";
  const at = name.lastIndexOf("@");
  const suffix = at >= 0 ? name.slice(at + 1) : "";
  const fromHeader = h.get("x-stub-behaviour");
  const chosen = (fromHeader ?? (BEHAVIOURS.includes(suffix as Behaviour) ? suffix : "ok")) as Behaviour;
  if (!BEHAVIOURS.includes(chosen)) throw new Error(`x-stub-behaviour: unknown behaviour ${chosen}`);
  return { behaviour: chosen, model: BEHAVIOURS.includes(suffix as Behaviour) ? name.slice(0, at) : name };
}

/** Authentication as each API checks it; null when the request may proceed. */
function authFailure(dialect: Dialect, h: Headers, apiKey: string | undefined): Response | null {
  if (dialect === "anthropic" && !h.get("anthropic-version")) {
    return json(400, errorBody("anthropic", "invalid_request_error", "anthropic-version: header is required"));
  }
  if (apiKey === undefined) return null;
  // Anthropic takes x-api-key (what svc and older SDKs send) or a Bearer token (what @anthropic-ai/sdk 1.x sends).
  const bearer = h.get("authorization")?.replace(/^Bearer /, "");
  const given = dialect === "openai" ? bearer : (h.get("x-api-key") ?? bearer);
  if (given === apiKey) return null;
  return json(401, errorBody(dialect, "authentication_error", dialect === "openai" ? "Incorrect API key provided" : "invalid x-api-key"));
}

/** Sends a reply, applying the stream-shaping behaviours (cut, bad_json, chunk delays) and recording how it ended. */
function render(reply: Reply, behaviour: Behaviour, knobs: Knobs, record: RecordedRequest, signal: AbortSignal): Response {
  signal.addEventListener("abort", () => {
    if (!record.completed) record.aborted = true;
  });
  if ("json" in reply) {
    const text = behaviour === "bad_json" ? '{"id": "broken", "choices": [' : JSON.stringify(reply.json);
    if (behaviour !== "cut") {
      record.completed = true;
      return new Response(text, { headers: { "content-type": "application/json" } });
    }
    let sent = false;
    return new Response(
      new ReadableStream({
        async pull(ctl) {
          if (sent) return void ctl.error(undefined); // undefined: drop the connection without Bun logging an error
          sent = true;
          ctl.enqueue(encoder.encode(text.slice(0, Math.floor(text.length / 2))));
          await sleep(CUT_FLUSH_MS);
        },
      }),
      { headers: { "content-type": "application/json" } },
    );
  }
  const frames = [...reply.frames];
  // The second frame keeps its event name (Anthropic's SDK skips unnamed events) but loses its JSON.
  if (behaviour === "bad_json" && frames.length > 1) frames[1] = frames[1]!.replace(/data: [\s\S]*$/, "data: {not valid json\n\n");
  let i = 0;
  return new Response(
    new ReadableStream({
      async pull(ctl) {
        if (i > 0) await sleep(knobs.chunkDelayMs);
        if (signal.aborted) return void ctl.close();
        if (behaviour === "cut" && i === knobs.cutAfter) {
          await sleep(CUT_FLUSH_MS);
          return void ctl.error(undefined);
        }
        if (i >= frames.length) {
          record.completed = true;
          return void ctl.close();
        }
        ctl.enqueue(encoder.encode(frames[i++]!));
      },
      cancel() {
        if (!record.completed) record.aborted = true;
      },
    }),
    { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } },
  );
}

export function startUpstream(options: UpstreamStubOptions = {}): UpstreamStub {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<() => void>();
  let counter = 0;
  const routes: Record<string, { dialect: Dialect; handle: (call: StubCall) => Reply } | undefined> = {
    "/v1/chat/completions": { dialect: "openai", handle: openaiChat },
    "/v1/embeddings": { dialect: "openai", handle: openaiEmbeddings },
    "/v1/messages": { dialect: "anthropic", handle: anthropicMessages },
    ...(options.responses === false ? {} : { "/v1/responses": { dialect: "openai" as const, handle: openaiResponses } }),
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // `hang` and `slow` must stay open as long as the client waits
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const text = await req.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        // recorded as text; answered below
      }
      const h = req.headers;
      const route = req.method === "POST" ? routes[path] : undefined;
      let chosen: { behaviour: Behaviour; model: string };
      try {
        chosen = behaviourOf(h, body?.model);
      } catch (err) {
        return json(400, errorBody("openai", "invalid_request_error", (err as Error).message));
      }
      const record: RecordedRequest = { method: req.method, path, headers: Object.fromEntries(h.entries()), body, behaviour: chosen.behaviour, completed: false, aborted: false };
      requests.push(record);
      if (!route) return json(404, errorBody("openai", "not_found_error", `no route ${req.method} ${path}`));
      const denied = authFailure(route.dialect, h, options.apiKey);
      if (denied) return denied;
      if (typeof body !== "object" || body === null) return json(400, errorBody(route.dialect, "invalid_request_error", "the body is not a JSON object"));

      const knobs = knobsOf(h);
      const { behaviour } = chosen;
      if (behaviour === "slow") await sleep(knobs.delayMs);
      if (behaviour === "hang") {
        await new Promise<void>((resolve) => {
          hanging.add(resolve);
          req.signal.addEventListener("abort", () => resolve());
        });
        record.aborted = true;
        return new Response(null, { status: 499 });
      }
      if (behaviour === "fail") return json(500, errorBody(route.dialect, route.dialect === "openai" ? "server_error" : "api_error", "the stub failed on purpose"));
      if (behaviour === "rate_limit") {
        return json(429, errorBody(route.dialect, "rate_limit_error", "the stub is rate limiting on purpose"), { "retry-after": knobs.retryAfter });
      }
      if (behaviour === "reject") return json(400, errorBody(route.dialect, "invalid_request_error", knobs.rejectMessage));

      let reply: Reply;
      try {
        reply = route.handle({ body, model: chosen.model, knobs, nextId: () => ++counter });
      } catch (err) {
        return json(400, errorBody(route.dialect, "invalid_request_error", (err as Error).message));
      }
      return render(reply, behaviour, knobs, record, req.signal);
    },
  });

  const url = `http://127.0.0.1:${server.port}`;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const resolve of hanging) resolve();
    server.stop(true);
  };
  onCleanup(stop);
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    last: (path) => requests.filter((r) => path === undefined || r.path === path).at(-1),
    clear: () => void requests.splice(0),
    stop,
  };
}

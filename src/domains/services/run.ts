/**
 * Running one paid call (docs/services.md "Running a call"): forwarded to the seller's upstream,
 * or answered by the seller's chat model or engine build. Either way an answer is delivered or
 * the call failed with a reason safe to show (no URL, no content), and the caller releases the
 * buyer's payment.
 *
 * Upstream: POST of the buyer's JSON body through the outbound guard (webhooks' ssrf.ts: the
 * resolved address pinned, private and metadata addresses refused unless the operator allows
 * them, redirects never followed), within services.call_timeout_ms, at most
 * services.max_response_bytes. Any answer below 500 is the seller's answer and is delivered (a
 * 4xx included: the seller refusing the input is still the seller answering); 3xx, 5xx, a
 * timeout or an unreachable host fail the call.
 *
 * Handler: one metered chat completion (inference's completeChat) on the SELLER's account and
 * credit, with the buyer's `input` as the user message. A hosted agent is not offered as a
 * handler: its runs are scheduler jobs that may take minutes, and the agents area exposes no
 * synchronous run; an engine build (engine/<slug>) carries a system prompt and pinned parameters,
 * which covers a fixed-instruction service.
 */
import { readCapped } from "../../core/capped-body.ts";
import { ApiError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { completeChat } from "../inference/index.ts";
import { fetchPinned, resolveTarget, TargetRefused } from "../webhooks/index.ts";
import type { ServiceRow } from "./store.ts";

export type CallResult =
  | { type: "upstream"; http_status: number; content_type: string; body: unknown }
  | { type: "handler"; model: string; text: string };

export type Outcome = { ok: true; httpStatus: number | null; responseSha256: string; result: CallResult } | { ok: false; httpStatus: number | null; reason: string };

class Failed extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | null = null,
  ) {
    super(message);
  }
}

/** The answer as the buyer gets it: parsed JSON when it is JSON, else text. */
function answerBody(bytes: Uint8Array, contentType: string): unknown {
  const text = Buffer.from(bytes).toString("utf8");
  if (/[/+]json$/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      // sent as text below
    }
  }
  return text;
}

async function forward(ctx: Context, service: ServiceRow, callId: string, requestBody: string): Promise<Outcome> {
  const timeoutMs = ctx.config.services.call_timeout_ms;
  let target;
  try {
    target = await resolveTarget(service.upstream_url!, { allowPrivate: ctx.config.webhooks.allow_private });
  } catch (err) {
    if (err instanceof TargetRefused) return { ok: false, httpStatus: null, reason: `the upstream's address is refused by the outbound guard: ${err.message}` };
    throw err;
  }
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let res: Response;
    try {
      res = await fetchPinned(target, {
        method: "POST",
        body: requestBody,
        headers: { "content-type": "application/json", accept: "application/json", "user-agent": "svc-services", "x-svc-service": service.slug, "x-svc-call-id": callId },
        signal,
      });
    } catch {
      throw new Failed(signal.aborted ? `the upstream did not answer within ${timeoutMs} ms` : "the upstream could not be reached");
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw new Failed(`the upstream answered HTTP ${res.status} (a redirect, which svc does not follow)`, res.status);
    }
    if (res.status >= 500) {
      await res.body?.cancel().catch(() => {});
      throw new Failed(`the upstream answered HTTP ${res.status}`, res.status);
    }
    const max = ctx.config.services.max_response_bytes;
    let bytes: Uint8Array | null;
    try {
      bytes = await readCapped(res, max);
    } catch (err) {
      throw new Failed(signal.aborted ? `the upstream did not finish answering within ${timeoutMs} ms` : "the upstream's answer was cut off", res.status);
    }
    if (!bytes) throw new Failed(`the upstream's answer is larger than ${max} bytes`, res.status);
    const contentType = res.headers.get("content-type")?.split(";")[0]?.trim() || "application/octet-stream";
    return { ok: true, httpStatus: res.status, responseSha256: sha256Hex(Buffer.from(bytes)), result: { type: "upstream", http_status: res.status, content_type: contentType, body: answerBody(bytes, contentType) } };
  } catch (err) {
    if (err instanceof Failed) return { ok: false, httpStatus: err.httpStatus, reason: err.message };
    throw err;
  }
}

async function answer(ctx: Context, service: ServiceRow, input: string): Promise<Outcome> {
  const model = service.handler_model!;
  try {
    const reply = await completeChat(ctx, {
      caller: { accountId: service.account_id, keyId: null },
      model,
      messages: [{ role: "user", content: input }],
      signal: AbortSignal.timeout(ctx.config.services.call_timeout_ms),
    });
    return { ok: true, httpStatus: null, responseSha256: sha256Hex(reply.text), result: { type: "handler", model, text: reply.text } };
  } catch (err) {
    // The seller's credit, model or provider: the buyer learns the kind, never the seller's balance.
    if (err instanceof ApiError) return { ok: false, httpStatus: null, reason: `the service's model handler could not answer (${err.type})` };
    if ((err as { name?: string } | null)?.name === "TimeoutError") return { ok: false, httpStatus: null, reason: `the model handler did not answer within ${ctx.config.services.call_timeout_ms} ms` };
    throw err;
  }
}

/** Runs the call; `requestBody` is the exact JSON forwarded (and fingerprinted). */
export function runCall(ctx: Context, service: ServiceRow, callId: string, requestBody: string, input: string | null): Promise<Outcome> {
  return service.upstream_url !== null ? forward(ctx, service, callId, requestBody) : answer(ctx, service, input ?? "");
}

/**
 * POST /v1/sandboxes: a one-shot run in a fresh sandbox with a private workspace that vanishes
 * after it, metered (execution.ts), answered as JSON with the receipt in the body and the
 * x-svc-receipt* headers, or as SSE with stream: true (stream.ts). Idempotency-Key returns the
 * first result again, never run or billed twice (idempotency.ts).
 */
import { ApiError, invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { receiptHeaders } from "../receipts/index.ts";
import { backendForNew } from "./dispatch.ts";
import { asApiError } from "./errors.ts";
import { type Executed, type ExecutionRequest, reserveExecution, runReserved, type RunView } from "./execution.ts";
import { abandonIdempotent, completeIdempotent, type IdempotencyClaim, replayResponse, startIdempotent, type StoredResponse } from "./idempotency.ts";
import { LANGUAGE_NAMES, type LanguageName, type RunIO, type RunSpec } from "./runner/index.ts";
import type { Principal } from "./sessions.ts";
import { replayStream, streamRun } from "./stream.ts";

export interface OneShotInput {
  language: LanguageName;
  code: string;
  stdin?: string;
  args?: string[];
  env?: Record<string, string>;
  files?: Record<string, string>;
  timeout_ms?: number;
  stream?: boolean;
  svc_run_id?: string;
}

/** The run's timeout: asked for, or the deployment's default; never above its maximum. */
export function timeoutOf(ctx: Context, asked: number | undefined): number {
  const max = ctx.config.sandboxes.max_timeout_ms;
  if (asked !== undefined && asked > max) throw invalidField("timeout_ms", `must be at most ${max} on this deployment (sandboxes.max_timeout_ms)`);
  return asked ?? ctx.config.sandboxes.default_timeout_ms;
}

/** RunSpec limits for a timeout: CPU time follows wall time, so a long timeout is not cut short by the default CPU limit. */
export const limitsFor = (timeoutMs: number): RunSpec["limits"] => ({ cpuMs: timeoutMs });

const runIdHeader = (runId: string | null): Record<string, string> => (runId ? { "x-svc-run-id": encodeURIComponent(runId) } : {});

/**
 * A reserved execution answered as JSON or SSE, with the Idempotency-Key bookkeeping: the result
 * is kept for the key; a run that produced none (refused, failed unbilled) frees the key.
 */
export function answerRun(
  ctx: Context,
  req: ExecutionRequest,
  claim: IdempotencyClaim | null,
  stream: boolean,
  clientSignal: AbortSignal,
  run: (io: RunIO, aborted: () => boolean) => Promise<Executed>,
): Promise<Response> | Response {
  const keep = (executed: Executed): Record<string, string> => {
    const headers = receiptHeaders(executed.settlement, executed.reservation);
    const stored: StoredResponse = { status: 200, body: executed.view, headers };
    try {
      completeIdempotent(ctx, claim, stored);
    } catch (err) {
      ctx.log.error("keeping an idempotent sandbox result failed", { error: err instanceof Error ? err.message : String(err) });
    }
    return headers;
  };
  if (stream) {
    return streamRun(
      (io) => run(io, () => io.signal?.aborted ?? false),
      (outcome) => ("executed" in outcome ? keep(outcome.executed) : abandonIdempotent(ctx, claim)),
      runIdHeader(req.runId),
      (err) => {
        const api = asApiError(err);
        if (api instanceof ApiError) return api.body();
        ctx.log.error("a streamed sandbox run failed", { error: err instanceof Error ? err.message : String(err) });
        return { error: { type: "internal_error", message: "the run failed on our side; it was not billed" } };
      },
    );
  }
  const abort = new AbortController();
  const onClientGone = () => abort.abort();
  clientSignal.addEventListener("abort", onClientGone, { once: true });
  return run({ signal: abort.signal }, () => abort.signal.aborted).then(
    (executed) => {
      clientSignal.removeEventListener("abort", onClientGone);
      return Response.json(executed.view, { headers: keep(executed) });
    },
    (err: unknown) => {
      clientSignal.removeEventListener("abort", onClientGone);
      abandonIdempotent(ctx, claim);
      throw err;
    },
  );
}

/** A stored result (Idempotency-Key replay) in the form asked for now. */
export function replayRun(stored: StoredResponse, stream: boolean): Response {
  return stream && stored.status === 200 ? replayStream(stored.body as RunView) : replayResponse(stored);
}

export async function oneShot(ctx: Context, principal: Principal, input: OneShotInput, idempotencyKey: string | undefined, clientSignal: AbortSignal): Promise<Response> {
  const timeoutMs = timeoutOf(ctx, input.timeout_ms);
  const start = startIdempotent(ctx, principal.accountId, idempotencyKey, "POST /v1/sandboxes", input);
  if (start && "replay" in start) return replayRun(start.replay, input.stream === true);
  const claim = start?.claim ?? null;
  let req: ExecutionRequest;
  let reservation;
  try {
    req = {
      accountId: principal.accountId,
      keyId: principal.keyId,
      language: input.language,
      spec: { language: input.language, code: input.code, args: input.args, stdin: input.stdin, env: input.env, files: input.files, timeoutMs, limits: limitsFor(timeoutMs) },
      timeoutMs,
      runId: input.svc_run_id ?? null,
      session: null,
      backend: await backendForNew(ctx, input.language),
    };
    reservation = await reserveExecution(ctx, req);
  } catch (err) {
    abandonIdempotent(ctx, claim);
    throw err;
  }
  const r = reservation;
  return answerRun(ctx, req, claim, input.stream === true, clientSignal, (io, aborted) => runReserved(ctx, req, r, io, () => (aborted() ? "client_disconnected" : null)));
}

export interface OneShotServiceInput {
  language: string;
  code: string;
  stdin?: string;
  timeout_ms?: number;
  svc_run_id?: string;
}

/**
 * A one-shot run for another area (the MCP sandbox_run tool): the same reservation, run and
 * settle as POST /v1/sandboxes, answered as the run's view with its settlement (its receipt).
 * An abort of `signal` stops the run; what it used is billed, as for a client that goes away.
 */
export async function runOneShot(ctx: Context, principal: Principal, input: OneShotServiceInput, signal?: AbortSignal): Promise<Executed> {
  if (!(LANGUAGE_NAMES as readonly string[]).includes(input.language)) throw invalidField("language", `must be one of ${LANGUAGE_NAMES.join(", ")}`);
  const language = input.language as LanguageName;
  const timeoutMs = timeoutOf(ctx, input.timeout_ms);
  const req: ExecutionRequest = {
    accountId: principal.accountId,
    keyId: principal.keyId,
    language,
    spec: { language, code: input.code, stdin: input.stdin, timeoutMs, limits: limitsFor(timeoutMs) },
    timeoutMs,
    runId: input.svc_run_id ?? null,
    session: null,
    backend: await backendForNew(ctx, language),
  };
  const reservation = await reserveExecution(ctx, req);
  return runReserved(ctx, req, reservation, { signal }, () => (signal?.aborted ? "client_disconnected" : null));
}

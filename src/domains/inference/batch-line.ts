/**
 * One line of a batch (the batches area): the body goes through the same pipeline as a live call
 * on its route — model, eligibility, reserve, fallback, settle on the upstream's usage, receipt
 * (naming the batch) — and the reply comes back in that route's shape, never streamed. The
 * caller's record of the result runs inside the settle's transaction (`within`), so a line is
 * billed exactly when its result is stored.
 */
import type { Settlement } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { chatDialect } from "./chat.ts";
import type { Dialect } from "./dialect.ts";
import { embeddingsDialect } from "./embeddings.ts";
import { messagesDialect } from "./messages.ts";
import { completeCall } from "./pipeline.ts";
import { UpstreamError } from "./providers/errors.ts";
import type { TokenUsage } from "./pricing.ts";
import { responsesDialect } from "./responses.ts";

const DIALECTS: Record<string, Dialect> = {
  "/v1/chat/completions": chatDialect,
  "/v1/embeddings": embeddingsDialect,
  "/v1/messages": messagesDialect,
  "/v1/responses": responsesDialect,
};

/** The routes a batch line may name, as its `url`. */
export const BATCH_ENDPOINTS = Object.keys(DIALECTS);

export interface BatchLineResult {
  /** The reply body, as the route would have answered it. */
  body: unknown;
  settlement: Settlement;
  usage: TokenUsage;
}

export interface BatchLineRequest {
  endpoint: string;
  principal: ApiKeyPrincipal;
  body: Record<string, unknown>;
  batchId: string;
  signal: AbortSignal;
  /** Runs in the settle's transaction: the caller stores the result with the charge. */
  within: (result: BatchLineResult) => void;
}

/** Runs one line; an ApiError (the route's own refusal, a meter refusal, an upstream failure) is thrown, with nothing billed. */
export async function completeBatchLine(ctx: Context, req: BatchLineRequest): Promise<BatchLineResult> {
  const dialect = DIALECTS[req.endpoint];
  if (!dialect) throw new Error(`not a batch endpoint: ${req.endpoint}`);
  // Upload refuses stream: true; a line is never streamed whatever it says.
  const body = req.body.stream === undefined ? req.body : { ...req.body, stream: false };
  const { value, settlement, usage } = await completeCall(
    ctx,
    dialect,
    { principal: req.principal, body, signal: req.signal, headers: {}, batchId: req.batchId },
    (_json, _provider, reply) => JSON.parse(reply.body) as unknown,
    (s, body, u) => req.within({ body, settlement: s, usage: u }),
  );
  return { body: value, settlement, usage };
}

/** Whether a line's failure may pass if tried again: the upstream timed out, rate-limited or failed (after fallback). Nothing was billed. */
export const retryableLineError = (err: unknown): boolean => err instanceof UpstreamError && err.retryable;

/**
 * Convening the jury: every juror is called at once through the inference pipeline (metered,
 * receipted like POST /v1/chat/completions) and its answer read as a vote.
 *
 * When a call fails, what happens depends on whose failure it is (docs/judge.md "When a juror
 * fails"):
 * - the juror's upstream failed (an error of type upstream_*: the provider is down, timed out,
 *   rate-limited or refused the request): that juror is recorded as failed — nothing was billed
 *   for it — and the verdict stands on the others. Only when every juror failed does the verdict
 *   fail (502 jurors_failed), and then nothing at all was billed.
 * - anything else (402 no credit or a spend cap, 403 a key control, the model gone from the
 *   catalogue) is the caller's or the deployment's, and would refuse every juror alike: the
 *   verdict fails with that error. The jurors still in flight are stopped, so only calls that
 *   had already finished are billed; the error lists their receipts as juror_receipt_ids.
 */
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { type Caller, completeChat } from "../inference/index.ts";
import { type Ballot, choicesOf, jurorMessages, readVote } from "./juror-prompt.ts";
import type { StoredVote } from "./store.ts";

export interface JurorVote extends StoredVote {
  rationale: string | null;
  /** What the juror's call cost (0 when it failed). */
  cost: number;
}

const upstreamFailure = (err: unknown): err is ApiError => err instanceof ApiError && err.type.startsWith("upstream_");

/** The error of a verdict that could not be reached, with the receipts of the juror calls already billed. */
function withBilled(err: unknown, billed: string[]): unknown {
  if (!(err instanceof ApiError)) return err;
  return new ApiError(err.status, err.type, err.message, { ...err.extra, juror_receipt_ids: billed }, err.headers);
}

export async function convene(ctx: Context, caller: Caller, jurors: readonly string[], ballot: Ballot, clientGone: AbortSignal): Promise<JurorVote[]> {
  const labels = choicesOf(ballot.candidates);
  const messages = jurorMessages(ballot);
  const stop = new AbortController();
  const signal = AbortSignal.any([clientGone, stop.signal]);
  // The first is the one to report; the rest are mostly the stop it caused.
  const fatal: unknown[] = [];

  const votes = await Promise.all(
    jurors.map(async (juror): Promise<JurorVote | null> => {
      try {
        const answer = await completeChat(ctx, { caller, model: juror, messages, json: true, maxTokens: ctx.config.judge.juror_max_tokens, exactModel: true, signal });
        const receiptId = answer.settlement.receipt?.id ?? null;
        const vote = readVote(answer.text, labels);
        const base = { juror, choice: vote.choice, rationale: vote.rationale, receipt_id: receiptId, cost: answer.settlement.cost };
        return vote.choice === null ? { ...base, status: "abstained", reason: vote.reason } : { ...base, status: "voted", reason: null };
      } catch (err) {
        if (!signal.aborted && upstreamFailure(err)) return { juror, status: "failed", choice: null, rationale: null, reason: err.type, receipt_id: null, cost: 0 };
        fatal.push(err);
        stop.abort();
        return null;
      }
    }),
  );

  const done = votes.filter((v): v is JurorVote => v !== null);
  if (fatal.length) throw withBilled(fatal[0], done.flatMap((v) => (v.receipt_id ? [v.receipt_id] : [])));
  if (done.every((v) => v.status === "failed")) {
    const detail = done.map((v) => `${v.juror}: ${v.reason}`).join("; ");
    throw new ApiError(502, "jurors_failed", `every juror's call failed upstream, so there is no verdict and nothing was billed (${detail})`, {
      jurors: done.map((v) => ({ juror: v.juror, type: v.reason })),
    });
  }
  return done;
}

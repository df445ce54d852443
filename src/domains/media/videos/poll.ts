/**
 * Moving a video job on: each poll asks the provider once and acts on the answer.
 *
 *   queued / in_progress  → progress recorded, next poll scheduled (never past the deadline)
 *   completed             → delivered: content downloaded (≤ media.video_max_bytes, an MP4 by its
 *                           bytes), the C2PA manifest embedded and signed citing the receipt id
 *                           chosen for it, stored sealed for media.video_ttl_secs, then the
 *                           hold settled for the seconds rendered (the rest of the longest
 *                           duration's hold released) with that receipt id, in the transaction
 *                           that marks the job succeeded
 *   failed                → failed, hold released: nothing billed
 *   no answer             → tried again at the next poll
 *   past the deadline     → expired, hold released (a render the provider finished is still
 *                           delivered by that last poll)
 *
 * Idempotent step by step, so a crash anywhere, a poll run twice or a cancel racing a poll never
 * bills twice: the receipt id is chosen once and kept; the settle or release and the status move
 * share one transaction, guarded by the job being unfinished; the loser of a race destroys the
 * asset it stored. An asset stored by a delivery that crashed before its settle is never served
 * (no job names it) and the expiry sweep destroys it.
 */
import type { Context } from "../../../context.ts";
import { ApiError } from "../../../core/errors.ts";
import type { SettledReceipt } from "../../../core/meter.ts";
import { destroyAsset, storeAsset } from "../asset-store.ts";
import { readManifest } from "../provenance/c2pa.ts";
import { sniffFormat } from "../provenance/formats.ts";
import { checkManifest } from "../provenance/manifest.ts";
import { newReceiptId, provenanceCredential, signGenerated } from "../signing.ts";
import { schedulePoll } from "./schedule.ts";
import { isUnfinished, type JobFailure, type JobRow, jobRow, markDelivered, markUnbilled, overdueJobIds, receiptIdFor, recordProgress, reservationOf } from "./store.ts";
import { readUpstreamJob, type UpstreamJob, videosOf } from "./upstream.ts";

const PROMPT_AAD = (id: string) => `media:video_prompt:${id}`;

export const sealPrompt = (ctx: Context, id: string, prompt: string): string => ctx.sealer.seal(prompt, PROMPT_AAD(id));

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

const isHoldClosed = (err: unknown) => err instanceof ApiError && err.type === "hold_closed";

/** What the provider says of the job now (throws when it cannot be asked or answers nonsense). */
export async function retrieveJob(ctx: Context, row: JobRow): Promise<UpstreamJob> {
  return readUpstreamJob(row.provider, await videosOf(ctx, row.provider).retrieve(row.upstream_id));
}

/**
 * Ends an unfinished job without billing it: the status move and the hold's release in one
 * transaction. false when the job had already finished (another hand got there first).
 */
export function finishUnbilled(ctx: Context, row: JobRow, status: "failed" | "canceled" | "expired", error: JobFailure): boolean {
  return ctx.tx.run(() => {
    if (!markUnbilled(ctx, row.id, status, error, ctx.clock.now())) return false;
    const hold = reservationOf(row);
    if (hold) {
      try {
        ctx.meter.release(hold);
      } catch (err) {
        // The meter's sweeper gave it back already (svc was down past the deadline and its margin).
        if (!isHoldClosed(err)) throw err;
      }
    }
    return true;
  });
}

/** The seconds billed: what the provider says it rendered, never more than was asked. */
export const secondsToBill = (row: Pick<JobRow, "seconds">, seen: UpstreamJob): number => (seen.seconds !== null && seen.seconds <= row.seconds ? seen.seconds : row.seconds);

export type DeliveryOutcome = "delivered" | "failed" | "expired" | "finished_elsewhere";

/**
 * The render is completed at the provider: deliver and bill it. Throws on a failure worth trying
 * again (the download broke off, the signing credential could not be read); the job is then left
 * as it was.
 */
export async function deliver(ctx: Context, row: JobRow, seen: UpstreamJob): Promise<DeliveryOutcome> {
  const cfg = ctx.config.media;
  const receiptId = receiptIdFor(ctx, row.id, newReceiptId());
  const content = await videosOf(ctx, row.provider).content(row.upstream_id);
  if (content.byteLength > cfg.video_max_bytes) {
    return finishUnbilled(ctx, row, "failed", { code: "content_too_large", message: `the provider's video is ${content.byteLength} bytes, more than this deployment accepts (media.video_max_bytes ${cfg.video_max_bytes})` })
      ? "failed"
      : "finished_elsewhere";
  }
  if (sniffFormat(content) !== "video/mp4") {
    return finishUnbilled(ctx, row, "failed", { code: "invalid_content", message: "the provider's content is not an MP4 video" }) ? "failed" : "finished_elsewhere";
  }
  const prompt = row.provenance_prompt ? ctx.sealer.openText(row.provenance_prompt, PROMPT_AAD(row.id)) : undefined;
  const signed = await signGenerated(ctx, content, { format: "video/mp4", model: row.model, receiptId, ...(prompt !== undefined ? { prompt } : {}) });
  const provenance = await readBack(ctx, signed.bytes, signed.sha256, receiptId, row.model);
  const asset = storeAsset(ctx, { accountId: row.account_id, mime: "video/mp4", bytes: signed.bytes, ttlMs: cfg.video_ttl_secs * 1000 }).row;

  const billedSeconds = secondsToBill(row, seen);
  const cost = billedSeconds * row.price_micro_usd_per_second;
  const units = {
    job_id: row.id,
    seconds: billedSeconds,
    requested_seconds: row.seconds,
    price_micro_usd_per_second: row.price_micro_usd_per_second,
    ...(row.size ? { size: row.size } : {}),
    image_input: row.image_input === 1,
    provider: row.provider,
    attestations: { provenance: { standard: "c2pa", asset_sha256: [signed.sha256] } },
  };
  let outcome: DeliveryOutcome;
  try {
    outcome = ctx.tx.run(() => {
      const current = jobRow(ctx, row.id);
      const hold = current && reservationOf(current);
      if (!current || !isUnfinished(current) || !hold) return "finished_elsewhere";
      const settlement = ctx.meter.settle(hold, cost, { units, status: "succeeded", receiptId });
      const receipt: SettledReceipt | null = settlement.receipt;
      if (!receipt) throw new Error("the settle minted no receipt");
      markDelivered(ctx, row.id, { billedSeconds, cost: settlement.cost, receipt, assetId: asset.id, sha256: signed.sha256, provenance, at: ctx.clock.now() });
      return "delivered";
    });
  } catch (err) {
    destroyAsset(ctx, asset.id);
    if (!isHoldClosed(err)) throw err;
    // The hold outlived the deadline by its margin and was given back: the job cannot be billed any more.
    outcome = finishUnbilled(ctx, row, "expired", { code: "hold_expired", message: "the render finished after the job's hold was released (svc could not poll it in time); nothing was billed" })
      ? "expired"
      : "finished_elsewhere";
    return outcome;
  }
  if (outcome !== "delivered") destroyAsset(ctx, asset.id);
  return outcome;
}

/** The manifest as a reader sees it: svc checks its own output before handing it over. */
async function readBack(ctx: Context, bytes: Uint8Array, sha256: string, receiptId: string, model: string): Promise<Record<string, unknown>> {
  const credential = await provenanceCredential(ctx);
  const base = { standard: "c2pa", sha256, signer: credential.subject, receipt_id: receiptId, model, created_at: null as string | null, signature_valid: false, hash_matches: false };
  try {
    const found = await readManifest(bytes, "video/mp4", credential.anchorsPem);
    if (!found) return base;
    const c = checkManifest(found);
    return { ...base, signer: c.signer?.common_name ?? credential.subject, receipt_id: c.receipt_id, model: c.model, created_at: c.created_at, signature_valid: c.signature_valid, hash_matches: c.hash_matches };
  } catch (err) {
    ctx.log.warn("reading back a signed video's manifest failed", { error: message(err) });
    return base;
  }
}

/**
 * One poll of one job (the scheduler's media.video_poll). Never throws for the provider's
 * sake: a failure to reach it is logged and the next poll scheduled, so the chain of polls
 * only ends with the job.
 */
export async function pollJob(ctx: Context, id: string): Promise<void> {
  const row = jobRow(ctx, id);
  if (!row || !isUnfinished(row)) return;
  let seen: UpstreamJob | null = null;
  try {
    seen = await retrieveJob(ctx, row);
  } catch (err) {
    ctx.log.warn("polling a video job failed; trying again at the next poll", { video_id: id, provider: row.provider, error: message(err) });
  }
  if (seen?.status === "completed") {
    try {
      await deliver(ctx, row, seen);
      return;
    } catch (err) {
      ctx.log.warn("delivering a finished video failed; trying again at the next poll", { video_id: id, provider: row.provider, error: message(err) });
    }
  } else if (seen?.status === "failed") {
    finishUnbilled(ctx, row, "failed", seen.error!);
    return;
  }
  ctx.tx.run(() => {
    if (ctx.clock.now() >= row.deadline_at) {
      finishUnbilled(ctx, row, "expired", { code: "deadline_exceeded", message: `the render did not finish within ${ctx.config.media.video_max_job_secs} s (media.video_max_job_secs); nothing was billed` });
      return;
    }
    if (seen) recordProgress(ctx, id, seen.status === "queued" ? "queued" : "running", seen.progress);
    schedulePoll(ctx, id, row.deadline_at);
  });
}

/** The watchdog: an unfinished job well past its deadline (its chain of polls broke) is expired and its hold released. */
export function expireOverdue(ctx: Context, graceMs: number, limit = 100): number {
  let n = 0;
  for (const id of overdueJobIds(ctx, ctx.clock.now() - graceMs, limit)) {
    const row = jobRow(ctx, id);
    if (row && finishUnbilled(ctx, row, "expired", { code: "deadline_exceeded", message: "the render did not finish before the job's deadline; nothing was billed" })) n++;
  }
  return n;
}

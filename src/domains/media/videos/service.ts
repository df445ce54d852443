/**
 * Video jobs (spec §2.6, §3, §4.3): asynchronous renders at an `openai-videos` provider, billed
 * per second of video, delivered with a signed C2PA manifest embedded.
 *
 *   create   check model, seconds, size, image → hold the model's LONGEST duration × price
 *            (key controls and credit apply; 402 before the provider hears of it) → start the
 *            render at the first provider that takes it (a retryable failure tries the next;
 *            any failure releases the hold and answers the provider's error) → the row and its
 *            first poll, one transaction → 202
 *   cancel   409 when already finished; else the provider is asked once: a render already
 *            finished is delivered and billed (billed: true), anything else is canceled and
 *            bills nothing (including a provider that cannot be reached: the caller asked to stop)
 *   delete   destroys the content; the row and its receipt stay. 409 while the job is unfinished
 *            (cancel it first): DELETE never stops a render by surprise
 *   content  the MP4 as an attachment while asset_available; 404 otherwise
 *
 * Polling and delivery: poll.ts.
 */
import type { Context } from "../../../context.ts";
import { ApiError } from "../../../core/errors.ts";
import { newId } from "../../../core/ids.ts";
import { requirePrice } from "../../../core/meter.ts";
import type { Caller } from "../../inference/index.ts";
import { assetRow, destroyAsset, readAsset } from "../asset-store.ts";
import { mediaModel, pickSize } from "../media-models.ts";
import { provenanceCredential } from "../signing.ts";
import { decodeImage, pickSeconds } from "./input.ts";
import { HOLD_MARGIN_MS } from "./limits.ts";
import { deliver, finishUnbilled, retrieveJob, sealPrompt } from "./poll.ts";
import { schedulePoll } from "./schedule.ts";
import { insertJob, isUnfinished, jobRow, listJobs, ownedJob } from "./store.ts";
import { createAtProvider, type UpstreamJob } from "./upstream.ts";
import { contentAvailable, jobView, type VideoJobView } from "./view.ts";

export interface GenerationRequest {
  model: string;
  prompt: string;
  image?: string;
  seconds?: number | string;
  size?: string;
  svc_run_id?: string;
  svc_provenance_prompt?: boolean;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function createVideoJob(ctx: Context, caller: Caller, req: GenerationRequest): Promise<VideoJobView> {
  const { model, providers } = mediaModel(ctx, "video", req.model);
  const seconds = pickSeconds(model, req.seconds);
  const size = pickSize(model, req.size);
  const image = req.image === undefined ? undefined : decodeImage(req.image);
  const price = requirePrice(model.price_micro_usd_per_second, `video model ${model.id}`);
  // The signing credential is read (or made) before any money moves: a broken one refuses up front.
  await provenanceCredential(ctx);

  const cfg = ctx.config.media;
  const reserved = Math.max(...model.durations!) * price;
  const reservation = await ctx.meter.reserveGrouped({
    accountId: caller.accountId,
    keyId: caller.keyId,
    amount: reserved,
    kind: "video",
    resource: model.id,
    resourceType: "model",
    runId: req.svc_run_id ?? null,
    holdTtlMs: cfg.video_max_job_secs * 1000 + HOLD_MARGIN_MS,
    // Stored on the job and settled by the poll job, after a restart too: a hold row.
    durable: true,
  });
  const release = () => ctx.meter.releaseGrouped(reservation).catch((e: unknown) => ctx.log.error("releasing a video hold failed", { error: message(e) }));

  let accepted: Awaited<ReturnType<typeof createAtProvider>>;
  try {
    // No abort signal: a render the provider accepted is tracked even when the caller goes away.
    accepted = await createAtProvider(providers, { model: model.upstream, prompt: req.prompt, seconds, ...(size ? { size } : {}), ...(image ? { image } : {}) });
  } catch (err) {
    await release();
    throw err;
  }
  const id = newId("vid");
  const now = ctx.clock.now();
  const deadline = now + cfg.video_max_job_secs * 1000;
  try {
    ctx.tx.run(() => {
      insertJob(ctx, {
        id,
        account_id: caller.accountId,
        key_id: caller.keyId,
        run_id: req.svc_run_id ?? null,
        model: model.id,
        provider: accepted.provider.name,
        upstream_id: accepted.job.id,
        status: accepted.job.status === "queued" ? "queued" : "running",
        progress: accepted.job.progress,
        seconds,
        size: size ?? null,
        image_input: image ? 1 : 0,
        price_micro_usd_per_second: price,
        reserved_micro_usd: reserved,
        reservation: JSON.stringify(reservation),
        provenance_prompt: req.svc_provenance_prompt ? sealPrompt(ctx, id, req.prompt) : null,
        created_at: now,
        deadline_at: deadline,
      });
      // Even a job the provider says is done already is delivered by a poll, never in the 202.
      schedulePoll(ctx, id, deadline);
    });
  } catch (err) {
    await release();
    throw err;
  }
  return jobView(ctx, jobRow(ctx, id)!);
}

export function getVideoJob(ctx: Context, accountId: string, id: string): VideoJobView {
  return jobView(ctx, ownedJob(ctx, accountId, id));
}

export function listVideoJobs(ctx: Context, accountId: string, limit: number): VideoJobView[] {
  return listJobs(ctx, accountId, limit).map((row) => jobView(ctx, row));
}

export async function cancelVideoJob(ctx: Context, accountId: string, id: string): Promise<VideoJobView> {
  const row = ownedJob(ctx, accountId, id);
  if (!isUnfinished(row)) throw new ApiError(409, "video_job_finished", `video job ${id} is already ${row.status}; only a queued or running job can be canceled`, { status: row.status });
  let seen: UpstreamJob | null = null;
  try {
    seen = await retrieveJob(ctx, row);
  } catch (err) {
    ctx.log.info("a canceled video job's provider could not be asked; canceling it unbilled", { video_id: id, error: message(err) });
  }
  if (seen?.status === "completed") {
    try {
      await deliver(ctx, row, seen);
    } catch (err) {
      ctx.log.info("a canceled video job's finished render could not be delivered; canceling it unbilled", { video_id: id, error: message(err) });
    }
  }
  finishUnbilled(ctx, row, "canceled", { code: "canceled", message: "canceled by request before the render was delivered; nothing was billed" });
  return jobView(ctx, jobRow(ctx, id)!);
}

/** DELETE: the content goes (idempotent); the row and its receipt stay. */
export function deleteVideoContent(ctx: Context, accountId: string, id: string): VideoJobView {
  const row = ownedJob(ctx, accountId, id);
  if (isUnfinished(row)) {
    throw new ApiError(409, "video_job_unfinished", `video job ${id} is still ${row.status}; cancel it first (POST /v1/videos/generations/${id}/cancel)`, { status: row.status });
  }
  if (row.asset_id) destroyAsset(ctx, row.asset_id);
  return jobView(ctx, jobRow(ctx, id)!);
}

function unavailable(reason: "not_ready" | "not_produced" | "deleted" | "expired", message: string): ApiError {
  return new ApiError(404, "video_content_unavailable", message, { reason });
}

/** GET …/content: the MP4 (manifest embedded), owner only, while asset_available. */
export function videoContent(ctx: Context, accountId: string, id: string): Response {
  const row = ownedJob(ctx, accountId, id);
  if (isUnfinished(row)) throw unavailable("not_ready", `video job ${id} is still ${row.status}`);
  if (row.status !== "succeeded" || !row.asset_id) throw unavailable("not_produced", `video job ${id} ${row.status}: it has no content`);
  const asset = assetRow(ctx, row.asset_id);
  const bytes = contentAvailable(ctx, row) && asset ? readAsset(ctx, asset) : null;
  if (!bytes) {
    const deleted = row.asset_destroyed_at !== null && (row.asset_expires_at === null || row.asset_destroyed_at < row.asset_expires_at);
    throw deleted ? unavailable("deleted", `video job ${id}'s content was deleted`) : unavailable("expired", `video job ${id}'s content expired (media.video_ttl_secs after it was delivered)`);
  }
  return new Response(bytes, {
    headers: {
      "content-type": "video/mp4",
      "content-disposition": `attachment; filename="${row.id}.mp4"`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
      ...(row.asset_sha256 ? { "x-svc-asset-sha256": row.asset_sha256 } : {}),
    },
  });
}

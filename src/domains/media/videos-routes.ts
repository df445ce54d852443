/**
 * /v1/videos/generations (spec §4.3; API key with the "inference" scope):
 *
 *   POST   /                 start a render → 202 with the vid_ job (the longest duration held)
 *   GET    /                 the account's jobs, newest first (?limit= 1-200, default 50; list object)
 *   GET    /:id              one job: status, progress, cost, receipt, provenance
 *   GET    /:id/content      the MP4 (attachment) while asset_available
 *   POST   /:id/cancel       canceled (nothing billed), or delivered and billed if already rendered
 *   DELETE /:id              destroys the content; row and receipt stay
 *
 * Rules: videos/service.ts (jobs) and videos/poll.ts (polling, delivery, billing); docs/media.md.
 */
import { Elysia } from "elysia";
import { listObject, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { LIST_LIMIT } from "./videos/limits.ts";
import * as M from "./videos/models.ts";
import { cancelVideoJob, createVideoJob, deleteVideoContent, getVideoJob, listVideoJobs, videoContent } from "./videos/service.ts";

const tags = ["media"];
const security = [{ apiKey: [] }];

export function videoRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/videos/generations" })
    .use(guards.apiKey(ctx, "inference"))
    .post(
      "",
      async ({ principal, body, set }) => {
        const job = await createVideoJob(ctx, { accountId: principal.accountId, keyId: principal.keyId }, body);
        set.status = 202;
        return job;
      },
      {
        body: M.GenerationBody,
        // 402 credit or a spend cap; 404 unknown model; 503 no provider can be called; 429, 502 and
        // 504 passed on from the provider (the hold released, nothing billed).
        response: { 202: M.VideoJob, ...errors(402, 404, 429, 502, 503, 504) },
        detail: {
          summary: "Start a video render (text-to-video, or image-to-video with image): 202 with the vid_ job; the model's longest duration × price is held, the difference released at settlement",
          description:
            "The job is polled at its provider every media.video_poll_interval_secs. When the render completes, the MP4 gets an embedded C2PA manifest (signed; it cites the receipt id) and is kept for media.video_ttl_secs; the seconds rendered are billed and the receipt binds the video's sha256 (attestations.provenance.asset_sha256). A failed render, a cancel before it finishes, or a job past media.video_max_job_secs bills nothing. See docs/media.md.",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal, query }) => listObject(listVideoJobs(ctx, principal.accountId, parseLimit(query.limit, LIST_LIMIT))), {
      query: M.ListQuery,
      response: { 200: M.VideoJobList },
      detail: { summary: "The account's video jobs, newest first (list object; ?limit= 1-200, default 50)", tags, security },
    })
    .get("/:id", ({ principal, params }) => getVideoJob(ctx, principal.accountId, params.id), {
      params: M.JobParams,
      response: { 200: M.VideoJob },
      detail: { summary: "A video job: status, progress (0-100), cost, expires_at, asset_available, the signed receipt and the provenance manifest check", tags, security },
    })
    .get("/:id/content", ({ principal, params }) => videoContent(ctx, principal.accountId, params.id), {
      params: M.JobParams,
      detail: {
        summary: "The video (MP4 with its C2PA manifest embedded) as an attachment, owner only, while asset_available",
        description: "404 video_content_unavailable (reason not_ready, not_produced, deleted or expired) for the caller's own job without content; 404 not_found for an unknown or another tenant's job.",
        tags,
        security,
        responses: M.ContentResponses,
      },
    })
    .post("/:id/cancel", ({ principal, params }) => cancelVideoJob(ctx, principal.accountId, params.id), {
      params: M.JobParams,
      response: { 200: M.VideoJob, ...errors(409) },
      detail: {
        summary: "Cancel a queued or running job: canceled, nothing billed — unless the provider already finished it, then it is delivered and billed (billed: true)",
        description: "409 video_job_finished (with status) when the job already ended.",
        tags,
        security,
      },
    })
    .delete("/:id", ({ principal, params }) => deleteVideoContent(ctx, principal.accountId, params.id), {
      params: M.JobParams,
      response: { 200: M.VideoJob, ...errors(409) },
      detail: {
        summary: "Destroy a finished job's content now (idempotent); the job and its receipt remain, asset_available false",
        description: "409 video_job_unfinished while the job is queued or running: cancel it first.",
        tags,
        security,
      },
    });
}

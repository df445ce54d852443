/**
 * Request and response schemas of /v1/videos/generations (spec §2.6 video job, §4.3): what the
 * OpenAPI document shows and what Elysia checks each answer against.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../../core/schemas.ts";
import { Address, Hex64, Signature, Statement } from "../../receipts/index.ts";
import { IMAGE_MAX_BYTES, LIST_LIMIT } from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const GenerationBody = t.Object(
  {
    model: t.String({ minLength: 1, maxLength: 128, description: "a video model from GET /v1/videos/models" }),
    prompt: t.String({ minLength: 1, maxLength: 32_000 }),
    image: t.Optional(
      t.String({
        minLength: 1,
        description: `image-to-video: the first frame, base64 or a data: URL, PNG, JPEG or WebP (at most ${IMAGE_MAX_BYTES} bytes decoded, and within the request body limit)`,
      }),
    ),
    seconds: t.Optional(
      t.Union([Int({ minimum: 1, maximum: 3600 }), t.String({ pattern: "^[0-9]{1,4}$" })], { description: "one of the model's durations (default: its first); a whole number, or its digits as a string (the OpenAI shape)" }),
    ),
    size: t.Optional(t.String({ maxLength: 16, description: "WIDTHxHEIGHT, one of the model's sizes (default: its first)" })),
    svc_run_id: t.Optional(t.String({ minLength: 1, maxLength: 128, description: "chain the receipt into this run" })),
    svc_provenance_prompt: t.Optional(t.Boolean({ default: false, description: "true: the prompt goes into the video's signed manifest (left out otherwise; receipts never carry it)" })),
  },
  closed,
);

export const JobParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = t.Object(
  {
    limit: t.Optional(t.String({ description: `how many, newest first: a whole number from ${LIST_LIMIT.min}, default ${LIST_LIMIT.default}; above ${LIST_LIMIT.max} is clamped to ${LIST_LIMIT.max}` })),
  },
  closed,
);

const JobReceipt = t.Object(
  {
    id: t.String({ description: "rcpt_…: the id the video's C2PA manifest cites" }),
    receipt: Statement,
    signature: Signature,
    signer: Address,
  },
  { ...closed, description: "the signed receipt of the settle (kind video): units.seconds billed, attestations.provenance.asset_sha256 = the delivered video's sha256" },
);

const JobProvenance = t.Object(
  {
    standard: t.Literal("c2pa"),
    sha256: Hex64,
    signer: Nullable(t.String({ description: "the C2PA signing certificate's subject (chain: GET /.well-known/c2pa/chain.pem)" })),
    receipt_id: Nullable(t.String({ description: "the receipt the manifest cites" })),
    model: Nullable(t.String()),
    created_at: Nullable(t.String()),
    signature_valid: t.Boolean({ description: "the manifest's signature verified when svc read it back after signing" }),
    hash_matches: t.Boolean({ description: "the manifest's hash binding matched the delivered bytes" }),
  },
  { ...closed, description: "the embedded C2PA manifest, as svc read it back from the delivered video" },
);

const JobError = t.Object({ code: t.String(), message: t.String() }, { ...closed, description: "why the job failed, was canceled or expired" });

export const VideoJob = t.Object(
  {
    id: t.String({ description: "vid_…" }),
    object: t.Literal("video.generation"),
    status: t.Union([t.Literal("queued"), t.Literal("running"), t.Literal("succeeded"), t.Literal("failed"), t.Literal("canceled"), t.Literal("expired")], {
      description: "queued, running (rendering at the provider), succeeded, failed, canceled, expired",
    }),
    progress: Int({ minimum: 0, maximum: 100 }),
    model: t.String(),
    seconds: Int({ minimum: 1, description: "the duration asked for" }),
    billed_seconds: Nullable(Int({ minimum: 0, description: "what was billed: the provider's duration, never more than asked; null until succeeded" })),
    size: Nullable(t.String()),
    image_input: t.Boolean({ description: "image-to-video" }),
    price_micro_usd_per_second: MicroUsd(),
    reserved_micro_usd: MicroUsd({ description: "held at creation: the model's longest duration × price; the difference is released at settlement" }),
    cost_micro_usd: MicroUsd({ description: "what was billed (0 unless succeeded)" }),
    billed: t.Boolean(),
    run_id: Nullable(t.String()),
    created_at: Time,
    finished_at: Nullable(Time),
    expires_at: Nullable(t.String({ format: "date-time", description: "unfinished: the deadline (expired past it, nothing billed); succeeded: when the content is destroyed; otherwise null" })),
    asset_available: t.Boolean({ description: "the content can be downloaded (GET …/content)" }),
    receipt: Nullable(JobReceipt),
    provenance: Nullable(JobProvenance),
    error: Nullable(JobError),
  },
  closed,
);

export const VideoJobList = t.Object({ object: t.Literal("list"), data: t.Array(VideoJob, { description: `newest first, at most ${LIST_LIMIT.max}` }) }, { ...closed, description: "Video jobs (list object; one page, no has_more)" });

const ERROR_REF = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };

/** The content route's OpenAPI responses: the MP4, or 404 (unknown, another tenant's, or no content to serve). */
export const ContentResponses = {
  200: { description: "The video (MP4, C2PA manifest embedded), as an attachment named <id>.mp4", content: { "video/mp4": { schema: { type: "string" as const, format: "binary" } } } },
  404: {
    description: "not_found: unknown or another tenant's job; video_content_unavailable: the job's own content is not there (reason: not_ready, not_produced, deleted, expired)",
    ...ERROR_REF,
  },
};

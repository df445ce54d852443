/**
 * Request and response schemas of the media routes other than video jobs (videos/models.ts):
 * the media model lists, image generation (the OpenAI Images shape plus svc's provenance
 * fields) and the provenance check.
 */
import { type DocumentDecoration, t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";

const closed = { additionalProperties: false } as const;

// ───────────────────────────── GET /v1/images/models, /v1/videos/models ─────────────────────────────

const MediaModelBase = {
  id: t.String(),
  object: t.Literal("model"),
  created: Int({ minimum: 0, description: "Unix seconds" }),
  owned_by: t.Literal("svc"),
  provider: t.String({ description: "the provider that serves it first" }),
  sizes: t.Array(t.String(), { description: "WIDTHxHEIGHT a request may ask for; the first is the default (empty: the provider's default only)" }),
  aspect_ratios: t.Array(t.String()),
};

export const ImageModelView = t.Object(
  {
    ...MediaModelBase,
    type: t.Literal("image"),
    pricing: t.Object({ price_micro_usd_per_image: MicroUsd() }, closed),
    max_images: Int({ minimum: 1, maximum: 10, description: "the most images one request may ask for (n)" }),
  },
  closed,
);

export const VideoModelView = t.Object(
  {
    ...MediaModelBase,
    type: t.Literal("video"),
    pricing: t.Object({ price_micro_usd_per_second: MicroUsd() }, closed),
    durations: t.Array(Int({ minimum: 1 }), { description: "the seconds a request may ask for; the first is the default" }),
    max_seconds: Int({ minimum: 1, description: "the longest duration: what a job reserves" }),
  },
  closed,
);

export const ImageModelList = t.Object({ object: t.Literal("list"), data: t.Array(ImageModelView) }, { ...closed, description: "Image models (list object)" });
export const VideoModelList = t.Object({ object: t.Literal("list"), data: t.Array(VideoModelView) }, { ...closed, description: "Video models (list object)" });

// ───────────────────────────── POST /v1/images/generations ─────────────────────────────

export const ImageGenerationBody = t.Object(
  {
    model: t.String({ minLength: 1, maxLength: 128, description: "an image model from GET /v1/images/models" }),
    prompt: t.String({ minLength: 1, maxLength: 32_000 }),
    n: t.Optional(Int({ minimum: 1, maximum: 10, default: 1 })),
    size: t.Optional(t.String({ maxLength: 16, description: "one of the model's sizes (default: its first)" })),
    response_format: t.Optional(t.Union([t.Literal("b64_json"), t.Literal("url")], { default: "b64_json" })),
    quality: t.Optional(t.String({ maxLength: 32, description: "passed to the provider as given" })),
    style: t.Optional(t.String({ maxLength: 32, description: "passed to the provider as given" })),
    background: t.Optional(t.String({ maxLength: 32, description: "passed to the provider as given" })),
    output_format: t.Optional(t.String({ maxLength: 16, description: "passed to the provider as given (png, jpeg, webp)" })),
    user: t.Optional(t.String({ maxLength: 256, description: "accepted for compatibility; not sent upstream" })),
    svc_run_id: t.Optional(t.String({ minLength: 1, maxLength: 128, description: "chain the receipt into this run" })),
    svc_provenance_prompt: t.Optional(t.Boolean({ default: false, description: "true: the prompt goes into each image's signed manifest (it is left out otherwise)" })),
  },
  closed,
);

const ImageProvenance = t.Object(
  {
    standard: t.Literal("c2pa"),
    sha256: t.String({ description: "sha256 of the image as returned (manifest embedded); the receipt's attestations.provenance.asset_sha256 lists it" }),
    format: t.String({ description: "image/png, image/jpeg or image/webp" }),
    receipt_id: t.String(),
    signer: t.String({ description: "the C2PA signing certificate's subject (chain: GET /.well-known/c2pa/chain.pem)" }),
  },
  closed,
);

export const ImagesResponse = t.Object(
  {
    created: Int({ minimum: 0, description: "Unix seconds" }),
    data: t.Array(
      t.Object(
        {
          b64_json: t.Optional(t.String({ description: "the image with its C2PA manifest embedded (response_format b64_json)" })),
          url: t.Optional(t.String({ description: "where the image (manifest embedded) can be fetched until it expires (response_format url)" })),
          revised_prompt: t.Optional(t.String()),
          svc_provenance: ImageProvenance,
        },
        closed,
      ),
    ),
    usage: t.Object({ images: Int({ minimum: 1 }), cost_micro_usd: MicroUsd() }, closed),
  },
  closed,
);

// ───────────────────────────── POST /v1/images/verify (alias /v1/videos/verify) ─────────────────────────────

export const VerifyBody = t.Object(
  {
    asset_b64: t.Optional(t.String({ minLength: 1, description: "the asset, base64 (PNG, JPEG, WebP or MP4)" })),
    manifest: t.Optional(t.String({ minLength: 1, maxLength: 16_384, description: "a receipt as svc signs it (X-Svc-Receipt, base64url canonical JSON): checked instead of the asset's embedded manifest" })),
    signature: t.Optional(t.String({ maxLength: 200, description: "the receipt's EIP-191 signature (X-Svc-Receipt-Signature); with manifest" })),
  },
  closed,
);

export const VerifyResult = t.Object(
  {
    manifest_found: t.Boolean({ description: "a C2PA manifest is embedded in the asset (or the manifest given parses as a svc receipt)" }),
    signature_valid: t.Boolean({ description: "the manifest's signature verifies against the certificate (C2PA) or key (receipt) it names" }),
    hash_matches: t.Boolean({ description: "the asset's bytes are the ones the signed manifest binds" }),
    source: Nullable(t.Union([t.Literal("c2pa"), t.Literal("receipt")], { description: "what was checked" })),
    trusted: t.Boolean({ description: "signed by this gateway (its C2PA chain, or its receipt key)" }),
    signer: Nullable(
      t.Object(
        {
          subject: Nullable(t.String({ description: "C2PA: the signing certificate's common name" })),
          issuer: Nullable(t.String()),
          alg: Nullable(t.String()),
          address: Nullable(t.String({ description: "receipt: the recovered signer address" })),
        },
        closed,
      ),
    ),
    receipt_id: Nullable(t.String()),
    model: Nullable(t.String()),
    created_at: Nullable(t.String()),
    asset_sha256: Nullable(t.String({ description: "sha256 of the asset given" })),
    failures: t.Array(t.String(), { description: "C2PA validation failure codes (signingCredential.untrusted, assertion.dataHash.mismatch, …)" }),
  },
  closed,
);

// ───────────────────────────── binary answers (OpenAPI responses) ─────────────────────────────

const ERROR_REF = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const binary = { schema: { type: "string" as const, format: "binary" } };

/** GET /v1/images/content/:token: the image, or gone. */
export const ImageContentResponses: NonNullable<DocumentDecoration["responses"]> = {
  200: { description: "The image, its C2PA manifest embedded", content: { "image/png": binary, "image/jpeg": binary, "image/webp": binary } },
  404: { description: "not_found: unknown token, or the image expired", ...ERROR_REF },
};

/** GET /.well-known/c2pa/chain.pem. */
export const ChainResponses: NonNullable<DocumentDecoration["responses"]> = {
  200: { description: "PEM certificates, the signer's first", content: { "application/x-pem-file": { schema: { type: "string" as const } } } },
};

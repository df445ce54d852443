/**
 * /v1/images (spec §4.3 "Payments and media": per image, signed provenance manifest embedded).
 *
 *   POST /v1/images/generations     OpenAI Images shape (API key, "inference" scope); the receipt in
 *                                   X-Svc-Receipt headers; every image carries its C2PA manifest
 *   GET  /v1/images/content/:token  public: an image answered as response_format "url", until it expires
 *
 * Rules: images.ts; docs/media.md.
 */
import { Elysia, t } from "elysia";
import { notFound } from "../../core/errors.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { setReceiptHeaders } from "../receipts/index.ts";
import { assetByToken, readAsset } from "./asset-store.ts";
import { generateImages } from "./images.ts";
import * as M from "./models.ts";

const tags = ["media"];
const security = [{ apiKey: [] }];

export function imageRoutes(ctx: Context) {
  const generation = new Elysia({ prefix: "/v1/images" }).use(guards.apiKey(ctx, "inference")).post(
    "/generations",
    async ({ principal, body, request, set }) => {
      const out = await generateImages(ctx, { accountId: principal.accountId, keyId: principal.keyId }, body, request.signal);
      setReceiptHeaders(set, out.settlement, out.reservation);
      return out.body;
    },
    {
      body: M.ImageGenerationBody,
      // 402 credit or a spend cap; 404 unknown model; 503 no provider can be called; 429, 502 and
      // 504 passed on from the provider (nothing billed).
      response: { 200: M.ImagesResponse, ...errors(402, 404, 429, 502, 503, 504) },
      detail: {
        summary: "Generate images (OpenAI Images shape), billed per image; each image carries an embedded, signed C2PA manifest citing the receipt",
        description:
          "Each image's C2PA manifest (signed ES256 with the chain at GET /.well-known/c2pa/chain.pem) states c2pa.created with digitalSourceType trainedAlgorithmicMedia, the model, the time and the receipt id; the receipt (X-Svc-Receipt, EIP-191) binds each image's sha256 in attestations.provenance. See docs/media.md.",
        tags,
        security,
      },
    },
  );
  const content = new Elysia({ prefix: "/v1/images" }).use(guards.public(ctx)).get(
    "/content/:token",
    ({ params }) => {
      const row = assetByToken(ctx, params.token);
      const bytes = row && readAsset(ctx, row);
      if (!row || !bytes) throw notFound("image (unknown or expired URL)");
      return new Response(bytes, { headers: { "content-type": row.mime, "cache-control": "private, max-age=300", "x-content-type-options": "nosniff" } });
    },
    {
      params: t.Object({ token: t.String({ minLength: 16, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" }) }),
      detail: { summary: "An image generated with response_format url, until media.image_url_ttl_secs after its generation", tags, responses: M.ImageContentResponses },
    },
  );
  return new Elysia().use(generation).use(content);
}

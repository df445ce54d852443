/**
 * POST /v1/images/generations: images from an `openai-images` provider, billed per image, each
 * returned with a signed C2PA manifest embedded.
 *
 *   check (model, n, size) → reserve n × price → provider (its fallbacks on a retryable
 *   failure) → fetch each image (b64_json, or a url the provider gave) → pick the receipt id →
 *   embed and sign each image's manifest (it cites that receipt) → settle the images actually
 *   returned, the receipt binding each signed image's sha256 → answer (b64_json, or a url svc
 *   serves for media.image_url_ttl_secs).
 *
 * Any failure before the settle releases the hold: nothing is billed for images the caller
 * does not get. Nothing of the prompt reaches the manifest or the receipt unless the caller
 * opts in (svc_provenance_prompt: manifest only; receipts are content-free).
 */
import { readCapped } from "../../core/capped-body.ts";
import type { Context } from "../../context.ts";
import { ApiError, invalidField } from "../../core/errors.ts";
import type { Reservation, Settlement } from "../../core/meter.ts";
import type { Caller } from "../inference/index.ts";
import { type CatalogModel, type CatalogProvider, UpstreamError } from "../inference/index.ts";
import { resolveTarget, TargetRefused } from "../webhooks/index.ts";
import { storeAsset } from "./asset-store.ts";
import { sniffFormat } from "./provenance/formats.ts";
import { mediaModel, pickSize } from "./media-models.ts";
import { newReceiptId, provenanceCredential, signGenerated } from "./signing.ts";

export interface ImageRequest {
  model: string;
  prompt: string;
  n?: number;
  size?: string;
  response_format?: "b64_json" | "url";
  quality?: string;
  style?: string;
  background?: string;
  output_format?: string;
  user?: string;
  svc_run_id?: string;
  svc_provenance_prompt?: boolean;
}

/** The most bytes one image may have, from the provider or its URL. */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 60_000;

export interface GeneratedImages {
  body: {
    created: number;
    data: { b64_json?: string; url?: string; revised_prompt?: string; svc_provenance: { standard: "c2pa"; sha256: string; format: string; receipt_id: string; signer: string } }[];
    usage: { images: number; cost_micro_usd: number };
  };
  settlement: Settlement;
  reservation: Reservation;
}

const upstreamBad = (provider: string, message: string) => new UpstreamError({ provider, status: 502, type: "upstream_error", retryable: false, message });

/** The provider's answer for one request, trying its fallbacks when a failure is retryable. */
async function callProviders(providers: CatalogProvider[], body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<{ provider: CatalogProvider; json: unknown }> {
  let last: unknown;
  for (const provider of providers) {
    const images = provider.adapter.images;
    if (!images) continue;
    try {
      return { provider, json: await images.generate(body, { signal }) };
    } catch (err) {
      last = err;
      if (!(err instanceof UpstreamError) || !err.retryable || signal?.aborted) throw err;
    }
  }
  throw last ?? new ApiError(503, "model_unavailable", "no image provider can be called right now");
}

/**
 * An image the provider answered with a URL: fetched from the provider's own origin (a local
 * server), or else only from a public address (the outbound guard), never following redirects.
 */
async function fetchImageUrl(ctx: Context, provider: CatalogProvider, raw: string, signal: AbortSignal | undefined): Promise<Uint8Array> {
  const sameOrigin = (() => {
    try {
      return new URL(raw).origin === new URL(provider.config.base_url).origin;
    } catch {
      return false;
    }
  })();
  let target;
  try {
    target = await resolveTarget(raw, { allowPrivate: sameOrigin || ctx.config.webhooks.allow_private });
  } catch (err) {
    if (err instanceof TargetRefused) throw upstreamBad(provider.name, `answered with an image URL svc will not fetch: it ${err.message}`);
    throw err;
  }
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  const res = await fetch(target.url, {
    headers: target.host ? { host: target.host } : {},
    redirect: "manual",
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
  } as RequestInit).catch((err: unknown) => {
    throw upstreamBad(provider.name, `its image URL could not be fetched (${err instanceof Error ? err.message : "error"})`);
  });
  if (res.status !== 200) throw upstreamBad(provider.name, `its image URL answered HTTP ${res.status}`);
  const bytes = await readCapped(res, MAX_IMAGE_BYTES);
  if (!bytes) throw upstreamBad(provider.name, `its image is larger than ${MAX_IMAGE_BYTES} bytes`);
  return bytes;
}

async function imagesOf(ctx: Context, provider: CatalogProvider, json: unknown, n: number, signal: AbortSignal | undefined): Promise<{ bytes: Uint8Array; revised?: string }[]> {
  const data = (json as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length === 0) throw upstreamBad(provider.name, "answered without images (no data array)");
  const out: { bytes: Uint8Array; revised?: string }[] = [];
  // A provider that returns more than asked is billed for, and answers with, what was asked.
  for (const item of data.slice(0, n) as { b64_json?: unknown; url?: unknown; revised_prompt?: unknown }[]) {
    let bytes: Uint8Array;
    if (typeof item?.b64_json === "string") bytes = new Uint8Array(Buffer.from(item.b64_json, "base64"));
    else if (typeof item?.url === "string") bytes = await fetchImageUrl(ctx, provider, item.url, signal);
    else throw upstreamBad(provider.name, "answered with an image that has neither b64_json nor url");
    if (bytes.byteLength > MAX_IMAGE_BYTES) throw upstreamBad(provider.name, `answered with an image larger than ${MAX_IMAGE_BYTES} bytes`);
    out.push({ bytes, ...(typeof item.revised_prompt === "string" ? { revised: item.revised_prompt } : {}) });
  }
  return out;
}

function upstreamBody(model: CatalogModel, req: ImageRequest, n: number, size: string | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = { model: model.upstream, prompt: req.prompt, n };
  if (size) body.size = size;
  for (const field of ["quality", "style", "background", "output_format"] as const) if (req[field] !== undefined) body[field] = req[field];
  return body;
}

export async function generateImages(ctx: Context, caller: Caller, req: ImageRequest, signal?: AbortSignal): Promise<GeneratedImages> {
  const { model, providers } = mediaModel(ctx, "image", req.model);
  const n = req.n ?? 1;
  const max = model.max_images ?? 10;
  if (n > max) throw invalidField("n", `must be at most ${max} for model ${model.id}`);
  const size = pickSize(model, req.size);
  const price = model.price_micro_usd_per_image!;
  // The signing credential is loaded (or made) before any money moves: a broken one refuses up front.
  const credential = await provenanceCredential(ctx);

  const reservation = await ctx.meter.reserveGrouped({ accountId: caller.accountId, keyId: caller.keyId, amount: n * price, kind: "image", resource: model.id, runId: req.svc_run_id ?? null });
  let settled = false;
  try {
    const { provider, json } = await callProviders(providers, upstreamBody(model, req, n, size), signal);
    const images = await imagesOf(ctx, provider, json, n, signal);
    const receiptId = newReceiptId();
    const signed = [];
    for (const image of images) {
      const format = sniffFormat(image.bytes);
      if (!format || format === "video/mp4") throw upstreamBad(provider.name, "answered with bytes that are not a PNG, JPEG or WebP image");
      const asset = await signGenerated(ctx, image.bytes, { format, model: model.id, receiptId, ...(req.svc_provenance_prompt ? { prompt: req.prompt } : {}) });
      signed.push({ ...asset, format, revised: image.revised });
    }
    const cost = signed.length * price;
    const settlement = await ctx.meter.settleGrouped(reservation, cost, {
      receiptId,
      status: "succeeded",
      units: {
        images: signed.length,
        requested: n,
        price_micro_usd_per_image: price,
        ...(size ? { size } : {}),
        provider: provider.name,
        attestations: { provenance: { standard: "c2pa", asset_sha256: signed.map((s) => s.sha256) } },
      },
    });
    settled = true;
    const ttlMs = ctx.config.media.image_url_ttl_secs * 1000;
    const data = signed.map((s) => {
      const provenance = { standard: "c2pa" as const, sha256: s.sha256, format: s.format, receipt_id: receiptId, signer: credential.subject };
      const revised = s.revised !== undefined ? { revised_prompt: s.revised } : {};
      if (req.response_format === "url") {
        const { token } = storeAsset(ctx, { accountId: caller.accountId, mime: s.format, bytes: s.bytes, ttlMs, publicToken: true });
        return { url: `${ctx.config.public_url}/v1/images/content/${token}`, ...revised, svc_provenance: provenance };
      }
      return { b64_json: Buffer.from(s.bytes).toString("base64"), ...revised, svc_provenance: provenance };
    });
    return { body: { created: Math.floor(ctx.clock.now() / 1000), data, usage: { images: signed.length, cost_micro_usd: settlement.cost } }, settlement, reservation };
  } finally {
    if (!settled) await ctx.meter.releaseGrouped(reservation).catch((e: unknown) => ctx.log.error("releasing an image hold failed", { error: e instanceof Error ? e.message : String(e) }));
  }
}

/**
 * GET /v1/images/models and GET /v1/videos/models (public): the image and video models of the
 * catalogue (svc.toml models[] of type image and video), list objects, empty until a provider
 * of the media kinds is configured and available. Read on every call, so catalogue changes
 * show without a restart (inference/catalog.ts).
 */
import { Elysia } from "elysia";
import { listObject } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";

const tags = ["media"];

export function mediaModelRoutes(ctx: Context) {
  const listed = (type: "image" | "video") => ctx.catalog.current().listed([type]);
  const base = (m: ReturnType<typeof listed>[number]) => ({
    id: m.model.id,
    object: "model" as const,
    created: m.model.created,
    owned_by: "svc" as const,
    provider: m.provider.name,
    sizes: [...(m.model.sizes ?? [])],
    aspect_ratios: [...(m.model.aspect_ratios ?? [])],
  });
  return new Elysia()
    .use(guards.public(ctx))
    .get(
      "/v1/images/models",
      () => listObject(listed("image").map((m) => ({ ...base(m), type: "image" as const, pricing: { price_micro_usd_per_image: m.model.price_micro_usd_per_image! }, max_images: m.model.max_images ?? 10 }))),
      { response: { 200: M.ImageModelList }, detail: { summary: "Image models with per-image prices in micro-USD (list object; empty until an image provider is enabled)", tags } },
    )
    .get(
      "/v1/videos/models",
      () =>
        listObject(
          listed("video").map((m) => ({
            ...base(m),
            type: "video" as const,
            pricing: { price_micro_usd_per_second: m.model.price_micro_usd_per_second! },
            durations: [...m.model.durations!],
            max_seconds: Math.max(...m.model.durations!),
          })),
        ),
      { response: { 200: M.VideoModelList }, detail: { summary: "Video models with per-second prices in micro-USD, durations, sizes and aspect ratios (list object; empty until a video provider is enabled)", tags } },
    );
}

/**
 * GET /v1/models (public): the catalogue with per-million-token prices, in the list-object
 * envelope (spec §2.1). Models no available provider can serve are left out (§4.1: "pinned to
 * an unconfigured provider"); see catalog.ts for what available means. Read from the catalogue
 * on every call, so provider and model changes in svc.toml show here without a restart.
 */
import { Elysia } from "elysia";
import { listObject } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import type { CatalogModel, CatalogProvider } from "./catalog.ts";
import * as M from "./models.ts";

const tags = ["inference"];

export function modelView(model: CatalogModel, provider: CatalogProvider) {
  return {
    id: model.id,
    object: "model" as const,
    created: model.created,
    owned_by: "svc" as const,
    provider: provider.name,
    // listed() serves this route chat and embedding models only.
    type: model.type as "chat" | "embedding",
    pricing: {
      input_micro_usd_per_mtok: model.input_micro_usd_per_mtok ?? null,
      output_micro_usd_per_mtok: model.output_micro_usd_per_mtok ?? null,
      cached_input_micro_usd_per_mtok: model.cached_input_micro_usd_per_mtok ?? null,
    },
    context_length: model.context_length ?? null,
    max_output: model.max_output ?? null,
    modalities: [...model.modalities],
  };
}

export function modelRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/models" })
    .use(guards.public(ctx))
    .get("", () => listObject(ctx.catalog.current().listed().map(({ model, provider }) => modelView(model, provider))), {
      response: { 200: M.ModelList },
      detail: { summary: "The model catalogue with per-Mtok pricing in micro-USD (list object); models no configured provider serves are omitted", tags },
    });
}

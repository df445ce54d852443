/**
 * The media model a request names, from the catalogue as it is now (hot-reloaded), with the
 * same refusals as the inference routes: 404 for an id the catalogue does not have, 400 for a
 * model of another type, 503 when no provider that serves it can be called here.
 */
import type { Context } from "../../context.ts";
import { ApiError, invalidField } from "../../core/errors.ts";
import type { CatalogModel, CatalogProvider } from "../inference/index.ts";

const ROUTE = { image: "POST /v1/images/generations", video: "POST /v1/videos/generations" } as const;
const LIST = { image: "GET /v1/images/models", video: "GET /v1/videos/models" } as const;

export function mediaModel(ctx: Context, type: "image" | "video", id: string): { model: CatalogModel; providers: CatalogProvider[] } {
  const snapshot = ctx.catalog.current();
  const model = snapshot.model(id);
  if (!model) throw new ApiError(404, "model_not_found", `model ${id} is not in this deployment's catalogue (${LIST[type]} lists it)`, { param: "model" });
  if (model.type !== type) throw invalidField("model", `${id} is a${model.type === "image" ? "n" : ""} ${model.type} model, not a${type === "image" ? "n" : ""} ${type} model; ${ROUTE[type]} takes ${type} models (${LIST[type]})`);
  const providers = snapshot.servingProviders(model);
  if (!providers.length) throw new ApiError(503, "model_unavailable", `no provider that serves model ${model.id} can be called on this deployment right now`, { model: model.id });
  return { model, providers };
}

/** The size asked for, checked against the model's list (its first is the default); undefined when the model lists none. */
export function pickSize(model: CatalogModel, size: string | undefined): string | undefined {
  const sizes = model.sizes ?? [];
  if (size === undefined) return sizes[0];
  if (sizes.length && !sizes.includes(size)) throw invalidField("size", `must be one of ${sizes.join(", ")} for model ${model.id}`);
  if (!/^[1-9][0-9]{1,4}x[1-9][0-9]{1,4}$/.test(size)) throw invalidField("size", "must be WIDTHxHEIGHT, e.g. 1024x1024");
  return size;
}

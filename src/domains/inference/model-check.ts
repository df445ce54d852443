/**
 * A model id checked against the catalogue as one of the inference routes would check it
 * (404 model_not_found; 400 for a model of the other type), for another area that stores a model
 * id to call later (a memory collection's embedding model, a hosted agent's model), naming the
 * caller's own field.
 */
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import type { Dialect } from "./dialect.ts";
import { findModel } from "./pipeline.ts";

export function checkModel(ctx: Context, dialect: Dialect, model: string, param: string): void {
  try {
    findModel(ctx, dialect, { model });
  } catch (err) {
    if (err instanceof ApiError && err.extra.param === "model" && param !== "model") {
      throw new ApiError(err.status, err.type, err.message.replace(/^model: /, `${param}: `), { ...err.extra, param }, err.headers);
    }
    throw err;
  }
}

/**
 * `engine/<slug>` as a model name in inference (the inference pipeline calls engineRequest as it
 * picks the model). The caller's published build is applied to the request body before anything
 * else is decided, so pricing, the reservation, scrubbing, guardrails and the upstream all see
 * the call as it will run:
 * - `model` becomes the build's pinned catalogue model (the receipt's resource);
 * - the build's system prompt comes first: a system message ahead of the messages (chat), ahead
 *   of the request's own `system` (messages) or `instructions` (responses);
 * - the build's parameters replace the request's values for the same settings (the spec_sha256
 *   on the receipt must describe the call that ran); settings the spec leaves out are the
 *   request's, as for any model.
 * Only the owning account resolves its engines; anything that does not resolve answers like an
 * unknown model (404 model_not_found), whoever asks.
 */
import { ApiError, invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { ENGINE_PREFIX, resolveModelName } from "./service.ts";
import type { EngineSpec } from "./spec.ts";
import type { BuildRecord } from "./store.ts";

/** The client APIs a request can come in on (inference's dialects). */
export type EngineApi = "chat" | "messages" | "responses" | "embeddings";

type Body = Record<string, unknown>;

/** What the receipt's `engine` attestation group states: which build ran, on which model. */
export interface EngineStamp {
  slug: string;
  build_id: string;
  version: number;
  spec_sha256: string;
  model: string;
}

export interface EngineCall {
  /** The request body to serve: the build applied. */
  body: Body;
  stamp: EngineStamp;
}

const prepend = (prompt: string, own: unknown): string => (typeof own === "string" && own !== "" ? `${prompt}\n\n${own}` : prompt);

function withSystemPrompt(api: Exclude<EngineApi, "embeddings">, body: Body, prompt: string): Body {
  if (api === "chat") return { ...body, messages: [{ role: "system", content: prompt }, ...(body.messages as unknown[])] };
  if (api === "messages") {
    // Anthropic's system is a string or an array of text blocks.
    const system = Array.isArray(body.system) ? [{ type: "text", text: prompt }, ...body.system] : prepend(prompt, body.system);
    return { ...body, system };
  }
  return { ...body, instructions: prepend(prompt, body.instructions) };
}

function withParameters(api: Exclude<EngineApi, "embeddings">, body: Body, p: EngineSpec["parameters"]): Body {
  const out = { ...body };
  if (p.temperature_milli !== undefined) out.temperature = p.temperature_milli / 1000;
  if (p.top_p_milli !== undefined) out.top_p = p.top_p_milli / 1000;
  if (p.max_tokens !== undefined) {
    if (api === "responses") out.max_output_tokens = p.max_tokens;
    else {
      out.max_tokens = p.max_tokens;
      // Chat reads max_completion_tokens before max_tokens: the spec's limit must be the one used.
      delete out.max_completion_tokens;
    }
  }
  return out;
}

export function applyBuild(api: Exclude<EngineApi, "embeddings">, body: Body, build: BuildRecord): Body {
  return { ...withParameters(api, withSystemPrompt(api, body, build.spec.system_prompt), build.spec.parameters), model: build.spec.model };
}

const stampOf = (build: BuildRecord): EngineStamp => ({ slug: build.slug, build_id: build.id, version: build.version, spec_sha256: build.specSha256, model: build.spec.model });

/**
 * What an `engine/…` model name resolves to for the account now, or null (not an engine name, or
 * nothing published under it): for an area that checks a model name it will call later through
 * inference (an arena run of an engine).
 */
export function engineFor(ctx: Context, accountId: string, name: string): EngineStamp | null {
  if (!name.startsWith(ENGINE_PREFIX)) return null;
  const build = resolveModelName(ctx, accountId, name);
  return build ? stampOf(build) : null;
}

/**
 * The engine call a request names, or null when its model is not an `engine/` name. Throws 404
 * model_not_found when the name resolves to no published build of the account, and 400 on the
 * embeddings route (an engine is a chat model).
 */
export function engineRequest(ctx: Context, accountId: string, api: EngineApi, body: Body): EngineCall | null {
  const name = body.model;
  if (typeof name !== "string" || !name.startsWith(ENGINE_PREFIX)) return null;
  const build = resolveModelName(ctx, accountId, name);
  if (!build) {
    throw new ApiError(404, "model_not_found", `model ${name} is not a published engine build of this account (GET /v1/engine/builds lists them)`, { param: "model" });
  }
  if (api === "embeddings") throw invalidField("model", `${name} is an engine of chat model ${build.spec.model}; use POST /v1/chat/completions, /v1/messages or /v1/responses`);
  return {
    body: applyBuild(api, body, build),
    stamp: stampOf(build),
  };
}

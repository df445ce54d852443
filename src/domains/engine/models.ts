/**
 * TypeBox models of the /v1/engine routes: closed request bodies (an unknown field is refused
 * and named, never stripped) and the exact shapes served (service.ts buildView), so the OpenAPI
 * document describes what is served.
 */
import { t } from "elysia";
import { Nullable } from "../../core/schemas.ts";
import { BUILDS_LIST_CAP, MAX_SYSTEM_PROMPT, PARAMETER_BOUNDS as P, SLUG_PATTERN } from "./limits.ts";

const closed = { additionalProperties: false } as const;

const SLUG_ERROR = "must be 1-64 lowercase letters, digits or inner hyphens (it is called as engine/<slug>)";
const Slug = (description: string) => t.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 64, error: SLUG_ERROR, description });

const Int = (bounds: { minimum: number; maximum: number }, description: string) =>
  t.Integer({ ...bounds, error: `must be a whole number from ${bounds.minimum} to ${bounds.maximum}`, description });

const Parameters = t.Object(
  {
    temperature_milli: t.Optional(Int(P.temperature_milli, "sampling temperature × 1000 (700 is 0.7); replaces the request's temperature")),
    top_p_milli: t.Optional(Int(P.top_p_milli, "top_p × 1000; replaces the request's top_p")),
    max_tokens: t.Optional(Int(P.max_tokens, "output token limit of each call; replaces the request's max_tokens / max_completion_tokens / max_output_tokens")),
  },
  { ...closed, description: "integers only (canonical JSON holds integers); a setting left out is the request's" },
);

const SpecFields = {
  model: t.String({ minLength: 1, maxLength: 128, description: "the pinned chat model: an id of GET /v1/models" }),
  system_prompt: t.String({ minLength: 1, maxLength: MAX_SYSTEM_PROMPT, description: `prepended to every call (at most ${MAX_SYSTEM_PROMPT} characters)` }),
};

export const SpecInput = t.Object({ ...SpecFields, parameters: t.Optional(Parameters) }, closed);

export const CreateBody = t.Object({ slug: Slug("the engine's name; each build of a slug is its next version"), spec: SpecInput }, closed);

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

export const SlugParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = t.Object({ slug: t.Optional(Slug("only this slug's builds")) });

const Time = t.String({ format: "date-time" });

export const Spec = t.Object({ ...SpecFields, parameters: Parameters }, { ...closed, description: "as stored and hashed: parameters always an object, holding the settings that were set" });

export const Build = t.Object(
  {
    id: t.String(),
    slug: t.String(),
    version: t.Integer({ minimum: 1, description: "1, 2, 3 … per slug" }),
    status: t.Union([t.Literal("draft"), t.Literal("published"), t.Literal("retired")]),
    model_name: t.String({ description: "engine/<slug>: the model name that reaches the slug's published version" }),
    pin: t.String({ description: "engine/<slug>@<version>: reaches this version only while it is the published one" }),
    spec: Spec,
    spec_sha256: t.String({ pattern: "^[0-9a-f]{64}$", description: "hex sha256 of the spec's canonical JSON (docs/engine.md)" }),
    created_at: Time,
    published_at: Nullable(Time),
    retired_at: Nullable(Time),
  },
  closed,
);

export const BuildList = t.Object({ builds: t.Array(Build, { maxItems: BUILDS_LIST_CAP, description: `newest first, at most ${BUILDS_LIST_CAP}` }) }, closed);

export const BuildDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

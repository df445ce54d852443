/**
 * Inference's svc.toml sections: providers[] (upstream LLM APIs), models[] (the catalogue,
 * GET /v1/models) and assistant.* (POST /v1/assistant). providers and models are hot-reloaded by
 * a running server (catalog.ts), which checks them with parseInferenceSection, as start does.
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { MicroUsd } from "../../core/schemas.ts";
import { Value } from "@sinclair/typebox/value";
import { ConfigError, type ConfigPart, schemaMessage } from "../../config.ts";

/**
 * Provider adapter kinds: src/domains/inference/providers/registry.ts holds one adapter factory
 * per kind. The chat kinds serve chat and embedding models; the media kinds serve image and
 * video models (the media area's routes).
 */
export const PROVIDER_KINDS = ["openai", "anthropic", "openai-images", "openai-videos"] as const;
export type ProviderKindName = (typeof PROVIDER_KINDS)[number];
/** Model types and the provider kinds that can serve each. */
export const MODEL_TYPES = ["chat", "embedding", "image", "video"] as const;
export type ModelType = (typeof MODEL_TYPES)[number];
export const KINDS_SERVING: Record<ModelType, readonly ProviderKindName[]> = {
  chat: ["openai", "anthropic"],
  embedding: ["openai"],
  image: ["openai-images"],
  video: ["openai-videos"],
};
/** Privacy tiers a provider may satisfy (svc_privacy_tier picks among them; docs/inference.md). */
export const PRIVACY_TIERS = ["standard", "zero_retention", "confidential"] as const;
export type PrivacyTier = (typeof PRIVACY_TIERS)[number];

const ProviderName = T.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,31}$" });
/** Prices are integers in micro-USD per million tokens; absent = not priced (such a model is refused, never billed at 0). */
const PricePerMtok = T.Optional(MicroUsd());

/** One upstream LLM API (svc providers add|list|remove). */
export const ProviderSchema = T.Object(
  {
    name: ProviderName,
    kind: T.Union([T.Literal("openai"), T.Literal("anthropic"), T.Literal("openai-images"), T.Literal("openai-videos")]),
    /** OpenAI kind: up to and including /v1 (https://api.openai.com/v1); anthropic kind: the origin (https://api.anthropic.com). */
    base_url: T.String({ pattern: "^https?://[^\\s]+$" }),
    /** The API key comes from this environment variable of the svc process… */
    api_key_env: T.Optional(T.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]{0,127}$" })),
    /** …or is sealed with the master key, bound to the provider's name (svc providers add --api-key-stdin). */
    api_key_sealed: T.Optional(T.String({ pattern: "^v1\\.[0-9a-f]{8}\\.[A-Za-z0-9_-]+$" })),
    regions: T.Array(T.String({ pattern: "^[a-z0-9][a-z0-9-]{0,31}$" }), { default: [] }),
    privacy_tiers: T.Array(T.Union(PRIVACY_TIERS.map((tier) => T.Literal(tier))), { default: ["standard"] }),
    /** The longest one call may take, streaming included (seconds; fractions allowed). */
    timeout_secs: T.Number({ exclusiveMinimum: 0, maximum: 3600, default: 600 }),
    /** Streaming calls only: the longest to wait for the upstream's response headers (docs/inference.md). */
    connect_timeout_secs: T.Optional(T.Number({ exclusiveMinimum: 0, maximum: 600 })),
    /** Extra request headers (plain text in svc.toml: no credentials here). */
    headers: T.Optional(T.Record(T.String({ pattern: "^[A-Za-z0-9-]{1,64}$" }), T.String({ maxLength: 1024 }))),
    /** OpenAI kind only: the upstream also serves POST /responses. */
    supports_responses: T.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

/** One model of the catalogue (GET /v1/models; svc models add|list|remove). */
export const ModelSchema = T.Object(
  {
    id: T.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$" }),
    provider: ProviderName,
    /** The model's name at the provider. */
    upstream: T.String({ minLength: 1, maxLength: 200 }),
    type: T.Union([T.Literal("chat"), T.Literal("embedding"), T.Literal("image"), T.Literal("video")], { default: "chat" }),
    input_micro_usd_per_mtok: PricePerMtok,
    output_micro_usd_per_mtok: PricePerMtok,
    /** Cache reads; absent: cached tokens are billed at the input price. */
    cached_input_micro_usd_per_mtok: PricePerMtok,
    context_length: T.Optional(T.Integer({ minimum: 1 })),
    max_output: T.Optional(T.Integer({ minimum: 1 })),
    modalities: T.Array(T.Union([T.Literal("text"), T.Literal("image")]), { minItems: 1, default: ["text"] }),
    /** Other providers serving the same upstream name, tried in order when the provider fails. */
    fallback_providers: T.Array(ProviderName, { default: [] }),
    /** Image models: the price of one generated image (required for type image). */
    price_micro_usd_per_image: T.Optional(MicroUsd()),
    /** Video models: the price of one second of generated video (required for type video). */
    price_micro_usd_per_second: T.Optional(MicroUsd()),
    /** Image and video models: the sizes (WIDTHxHEIGHT) a caller may ask for; the first is the default. */
    sizes: T.Optional(T.Array(T.String({ pattern: "^[1-9][0-9]{1,4}x[1-9][0-9]{1,4}$" }), { minItems: 1, maxItems: 32 })),
    /** Video models: the durations (whole seconds) a caller may ask for; the first is the default, the largest is what is reserved. */
    durations: T.Optional(T.Array(T.Integer({ minimum: 1, maximum: 600 }), { minItems: 1, maxItems: 32 })),
    /** Image and video models: aspect ratios offered (informational, e.g. "16:9"). */
    aspect_ratios: T.Optional(T.Array(T.String({ pattern: "^[1-9][0-9]{0,2}:[1-9][0-9]{0,2}$" }), { maxItems: 16 })),
    /** Image models: the most images one request may ask for (n). */
    max_images: T.Optional(T.Integer({ minimum: 1, maximum: 10 })),
    /** Unix seconds, shown as `created` by GET /v1/models (svc models add sets it). */
    created: T.Optional(T.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/** POST /v1/assistant: the keyless assistant (docs/inference.md). */
export const AssistantSection = T.Object(
  {
    /** A model id of the catalogue; empty = the assistant is off (404). */
    model: T.String({ maxLength: 128 }),
    /** What all assistant calls together may cost per UTC day, integer micro-USD. */
    daily_budget_micro_usd: MicroUsd(),
    /** Requests per minute per client address (its burst is the same number). */
    per_ip_per_minute: T.Integer({ minimum: 1, maximum: 10_000 }),
    /** The most output one answer may have (a request may ask for less). */
    max_output_tokens: T.Integer({ minimum: 1, maximum: 32_768 }),
  },
  { additionalProperties: false },
);

export type ProviderConfig = Static<typeof ProviderSchema>;
export type ModelConfig = Static<typeof ModelSchema>;
export interface InferenceSection {
  providers: ProviderConfig[];
  models: ModelConfig[];
}

function itemErrors(label: string, schema: typeof ProviderSchema | typeof ModelSchema, items: unknown): string[] {
  if (items === undefined) return [];
  if (!Array.isArray(items)) return [`${label}: expected an array of tables ([[${label}]])`];
  const out: string[] = [];
  items.forEach((item, i) => {
    Value.Default(schema, item);
    const key = item && typeof item === "object" ? ((item as Tree).name ?? (item as Tree).id) : undefined;
    const where = `${label}[${i}]${typeof key === "string" ? ` (${key})` : ""}`;
    for (const e of Value.Errors(schema, item)) out.push(`${where}.${e.path.slice(1).replaceAll("/", ".") || "(table)"}: ${schemaMessage(e as never)}`);
  });
  return out;
}

/**
 * Checks providers[] and models[] as a whole and fills their defaults: each entry's fields, then
 * what ties them together (unique names and ids, every provider a model names exists and can
 * serve it, one credential source per provider). loadConfig runs it at start and the catalogue
 * runs it on every hot reload, so a file a running server accepts is a file `svc serve` accepts.
 */
export function parseInferenceSection(tree: { providers?: unknown; models?: unknown }): InferenceSection {
  const errors = [...itemErrors("providers", ProviderSchema, tree.providers), ...itemErrors("models", ModelSchema, tree.models)];
  if (errors.length) throw new ConfigError(`inference catalogue is invalid:\n${errors.slice(0, 5).map((l) => `  ${l}`).join("\n")}`);
  const providers = (tree.providers ?? []) as ProviderConfig[];
  const models = (tree.models ?? []) as ModelConfig[];
  const problems: string[] = [];
  const byName = new Map<string, ProviderConfig>();
  for (const p of providers) {
    if (byName.has(p.name)) problems.push(`providers: two providers are named "${p.name}"`);
    byName.set(p.name, p);
    if (p.api_key_env !== undefined && p.api_key_sealed !== undefined) problems.push(`providers (${p.name}): give api_key_env or api_key_sealed, not both`);
    if (p.supports_responses && p.kind !== "openai") problems.push(`providers (${p.name}): supports_responses applies to the openai kind only`);
    for (const h of Object.keys(p.headers ?? {})) {
      if (/^(authorization|x-api-key|anthropic-version|content-type|content-length|host|accept)$/i.test(h)) problems.push(`providers (${p.name}): headers may not set ${h} (svc sets it)`);
    }
  }
  const ids = new Set<string>();
  for (const m of models) {
    if (ids.has(m.id)) problems.push(`models: two models have the id "${m.id}"`);
    ids.add(m.id);
    const serving = [m.provider, ...m.fallback_providers];
    for (const name of serving) {
      const p = byName.get(name);
      if (!p) problems.push(`models (${m.id}): provider "${name}" is not configured (providers: ${[...byName.keys()].join(", ") || "none"})`);
      else if (!KINDS_SERVING[m.type].includes(p.kind)) problems.push(`models (${m.id}): provider "${name}" is of kind ${p.kind}, which serves no ${m.type} models (kinds that do: ${KINDS_SERVING[m.type].join(", ")})`);
    }
    problems.push(...mediaModelProblems(m));
    if (new Set(serving).size !== serving.length) problems.push(`models (${m.id}): fallback_providers repeat a provider (or name the model's own provider)`);
  }
  if (problems.length) throw new ConfigError(`inference catalogue is invalid:\n${problems.slice(0, 5).map((l) => `  ${l}`).join("\n")}`);
  return { providers, models };
}

/** What an image or video model must state (its price and options), and what only they may. */
function mediaModelProblems(m: ModelConfig): string[] {
  const out: string[] = [];
  const where = `models (${m.id})`;
  if (m.type === "image" && m.price_micro_usd_per_image === undefined) out.push(`${where}: an image model needs price_micro_usd_per_image`);
  if (m.type === "video") {
    if (m.price_micro_usd_per_second === undefined) out.push(`${where}: a video model needs price_micro_usd_per_second`);
    if (!m.durations?.length) out.push(`${where}: a video model needs durations (the seconds a caller may ask for)`);
  }
  const media = m.type === "image" || m.type === "video";
  for (const field of ["price_micro_usd_per_image", "price_micro_usd_per_second", "sizes", "durations", "aspect_ratios", "max_images"] as const) {
    const own = field === "price_micro_usd_per_image" || field === "max_images" ? m.type === "image" : field === "price_micro_usd_per_second" || field === "durations" ? m.type === "video" : media;
    if (m[field] !== undefined && !own) out.push(`${where}: ${field} does not apply to a ${m.type} model`);
  }
  return out;
}

type Tree = Record<string, unknown>;

declare module "../../config.ts" {
  interface DomainConfig {
    providers: ProviderConfig[];
    models: ModelConfig[];
    assistant: Static<typeof AssistantSection>;
  }
}

export const inferenceConfig: ConfigPart = {
  sections: {
    providers: { schema: T.Array(ProviderSchema), default: [] },
    models: { schema: T.Array(ModelSchema), default: [] },
    assistant: { schema: AssistantSection, default: { model: "", daily_budget_micro_usd: 1_000_000, per_ip_per_minute: 10, max_output_tokens: 1024 } },
  },
  prepare(tree) {
    Object.assign(tree, parseInferenceSection(tree));
  },
};

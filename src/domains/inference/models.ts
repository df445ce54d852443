/**
 * TypeBox models of the inference routes (docs/inference.md).
 *
 * Requests: the OpenAI and Anthropic bodies are open on purpose — unknown fields pass through to
 * the upstream unchanged — and the schemas name what svc itself reads, with the checks the
 * dialects, the pricing and svc-options.ts make (and their messages; those checks stay, as the
 * last word). The svc_ fields are svc's own and never reach an upstream.
 *
 * Responses: a reply forwarded from a same-shape upstream is the upstream's own JSON, unknown
 * fields and all; a translated one is built by translate/. So each reply is described as its
 * vendor documents it — the fields both paths carry are named, typed and required — and left open
 * (additionalProperties) for the rest. `stream: true` answers text/event-stream instead (the
 * vendor's event sequence, then a `: svc.receipt {…}` comment line), so the 200 of the three
 * streaming routes is declared with both media types through `detail.responses`: Elysia's
 * response hook gives a route one media type per status. Those routes answer a Response the
 * pipeline built, which Elysia does not validate against a schema.
 */
import { type DocumentDecoration, t, type TSchema } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { MAX_TURN_CHARS, MAX_TURNS } from "./assistant.ts";
import { PRIVACY_TIERS } from "./config.ts";
import { MAX_CONTEXT_DOCUMENTS, MAX_RUN_ID_CHARS, MAX_SOURCE_SET_ID_CHARS } from "./svc-options.ts";

const open = { additionalProperties: true } as const;
const closed = { additionalProperties: false } as const;

/** A positive integer a request may also send as null (pricing.ts positiveInt). */
const PositiveInt = (description: string) =>
  t.Optional(t.Union([Int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), t.Null()], { error: "must be a positive integer", description }));

// ───────────────────────────── requests ─────────────────────────────

/** svc_ fields (svc-options.ts), accepted on all four routes and removed before anything goes upstream. */
const SVC_FIELDS = {
  svc_privacy_tier: t.Optional(
    t.Union(
      PRIVACY_TIERS.map((tier) => t.Literal(tier)),
      { error: `must be one of ${PRIVACY_TIERS.join(", ")}`, description: "only providers declaring this tier may serve the call; overrides the key's tier" },
    ),
  ),
  svc_region: t.Optional(
    t.String({
      pattern: "^[a-z0-9][a-z0-9-]{0,31}$",
      error: "must be a region name: 1-32 of a-z, 0-9 and -, as the deployment's providers declare them",
      description: "only providers serving from this region",
    }),
  ),
  svc_scrub: t.Optional(t.Boolean({ description: "redact secret and PII shapes from the prompt before it leaves; the count is on the receipt" })),
  svc_run_id: t.Optional(
    t.String({
      minLength: 1,
      maxLength: MAX_RUN_ID_CHARS,
      pattern: "^[^\\u0000-\\u001f\\u007f]*$",
      error: `must be a string of 1-${MAX_RUN_ID_CHARS} characters without control characters`,
      description: "chain the receipt into this run (GET /v1/runs/:id); echoed in x-svc-run-id",
    }),
  ),
  svc_context: t.Optional(
    t.Array(
      t.Union([t.String(), t.Object({ content: t.String() }, open), t.Object({ text: t.String() }, open)], {
        error: "must be a string, or an object with a string `content` (or `text`)",
      }),
      {
        minItems: 1,
        maxItems: MAX_CONTEXT_DOCUMENTS,
        error: `must be an array of 1-${MAX_CONTEXT_DOCUMENTS} documents`,
        description: "context documents: their sha256 fingerprints and Merkle root go on the receipt, never the content; sent nowhere",
      },
    ),
  ),
  svc_source_set: t.Optional(
    t.String({
      minLength: 1,
      maxLength: MAX_SOURCE_SET_ID_CHARS,
      error: `must be a source set id (sset_…; GET /v1/sources/sets), 1-${MAX_SOURCE_SET_ID_CHARS} characters`,
      description: "cite one of the account's source sets: its id and fingerprint go on the receipt (attestations.source_set); 404 source_set_not_found otherwise",
    }),
  ),
};

const Model = t.String({ minLength: 1, error: "is required: a model id from GET /v1/models", description: "a model id from GET /v1/models" });
const Stream = t.Optional(t.Boolean({ description: "true: answer text/event-stream" }));
const Messages = t.Array(t.Unknown(), { minItems: 1, error: "must be a non-empty array" });

const inferenceBody = <P extends Record<string, TSchema>>(fields: P, description: string) =>
  t.Object({ model: Model, ...fields, ...SVC_FIELDS }, { ...open, description });

export const ChatBody = inferenceBody(
  {
    messages: Messages,
    stream: Stream,
    max_tokens: PositiveInt("output tokens per choice (capped at the model's max_output)"),
    max_completion_tokens: PositiveInt("output tokens per choice; wins over max_tokens"),
    n: PositiveInt("choices; an Anthropic-served model takes only 1"),
  },
  "OpenAI Chat Completions request; other fields pass through to the upstream",
);

export const ResponsesBody = inferenceBody(
  {
    input: t.Union([t.String(), t.Array(t.Unknown())], { error: "must be a string or an array of input items" }),
    stream: Stream,
    max_output_tokens: PositiveInt("output tokens (capped at the model's max_output)"),
    previous_response_id: t.Optional(
      t.Null({ error: "is not supported: svc keeps no conversation state; send the whole conversation in `input` (earlier output items included)" }),
    ),
  },
  "OpenAI Responses request; previous_response_id is refused (svc keeps no conversation state)",
);

export const EmbeddingsBody = inferenceBody(
  {
    input: t.Union([t.String(), t.Array(t.String()), t.Array(t.Number()), t.Array(t.Array(t.Number()))], {
      error: "must be a string, an array of strings, or token ids",
      description: "a string, an array of strings, token ids, or arrays of token ids",
    }),
    stream: t.Optional(t.Literal(false, { error: "embeddings do not stream" })),
  },
  "OpenAI Embeddings request",
);

export const MessagesBody = inferenceBody(
  {
    messages: Messages,
    max_tokens: Int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, error: "is required: a positive integer" }),
    stream: Stream,
  },
  "Anthropic Messages request (any anthropic-version header)",
);

export const AssistantBody = t.Object(
  {
    messages: t.Array(t.Object({ role: t.Union([t.Literal("user"), t.Literal("assistant")]), content: t.String({ minLength: 1, maxLength: MAX_TURN_CHARS }) }, open), {
      minItems: 1,
      maxItems: MAX_TURNS,
      description: "the conversation; the last turn must be the user's",
    }),
    max_tokens: t.Optional(Int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "capped at the operator's assistant.max_output_tokens" })),
  },
  closed,
);

// ───────────────────────────── replies ─────────────────────────────

const Usage = (fields: Record<string, TSchema>, description: string) => t.Object(fields, { ...open, description });

const ChatToolCall = t.Object(
  { id: t.String(), type: t.String({ description: '"function"' }), function: t.Object({ name: t.String(), arguments: t.String({ description: "JSON text" }) }, open) },
  open,
);

export const ChatCompletion = t.Object(
  {
    id: t.String(),
    object: t.Literal("chat.completion"),
    created: Int({ description: "Unix seconds" }),
    model: t.String(),
    choices: t.Array(
      t.Object(
        {
          index: Int({ minimum: 0 }),
          message: t.Object(
            {
              role: t.Literal("assistant"),
              content: Nullable(t.String()),
              refusal: t.Optional(Nullable(t.String())),
              tool_calls: t.Optional(t.Array(ChatToolCall)),
            },
            open,
          ),
          finish_reason: Nullable(t.String({ description: "stop, length, tool_calls, content_filter, …" })),
          logprobs: t.Optional(t.Unknown()),
        },
        open,
      ),
    ),
    usage: t.Optional(
      Nullable(
        Usage(
          {
            prompt_tokens: Int({ minimum: 0 }),
            completion_tokens: Int({ minimum: 0 }),
            total_tokens: Int({ minimum: 0 }),
            prompt_tokens_details: t.Optional(Nullable(t.Object({ cached_tokens: t.Optional(Int({ minimum: 0 })) }, open))),
            completion_tokens_details: t.Optional(Nullable(t.Object({ reasoning_tokens: t.Optional(Int({ minimum: 0 })) }, open))),
          },
          "what the call is billed on",
        ),
      ),
    ),
    system_fingerprint: t.Optional(Nullable(t.String())),
    service_tier: t.Optional(Nullable(t.String())),
  },
  { ...open, description: "OpenAI Chat Completion; the receipt is in the x-svc-receipt* headers" },
);

export const AnthropicMessage = t.Object(
  {
    id: t.String(),
    type: t.Literal("message"),
    role: t.Literal("assistant"),
    model: t.String(),
    content: t.Array(t.Object({ type: t.String({ description: "text, tool_use, thinking, …" }) }, open)),
    stop_reason: Nullable(t.String({ description: "end_turn, max_tokens, stop_sequence, tool_use, …" })),
    stop_sequence: t.Optional(Nullable(t.String())),
    usage: Usage(
      {
        input_tokens: Int({ minimum: 0 }),
        output_tokens: Int({ minimum: 0 }),
        cache_creation_input_tokens: t.Optional(Nullable(Int({ minimum: 0 }))),
        cache_read_input_tokens: t.Optional(Nullable(Int({ minimum: 0 }))),
      },
      "what the call is billed on",
    ),
  },
  { ...open, description: "Anthropic Message; the receipt is in the x-svc-receipt* headers" },
);

export const ResponseObject = t.Object(
  {
    id: t.String(),
    object: t.Literal("response"),
    created_at: t.Number({ description: "Unix seconds" }),
    status: t.String({ description: "completed, incomplete, in_progress, failed, …" }),
    model: t.String(),
    output: t.Array(t.Object({ type: t.String({ description: "message, function_call, …" }) }, open)),
    error: t.Optional(Nullable(t.Object({ code: t.String(), message: t.String() }, open))),
    incomplete_details: t.Optional(Nullable(t.Object({ reason: t.String() }, open))),
    usage: t.Optional(
      Nullable(
        Usage(
          {
            input_tokens: Int({ minimum: 0 }),
            output_tokens: Int({ minimum: 0 }),
            total_tokens: Int({ minimum: 0 }),
            input_tokens_details: t.Optional(t.Object({ cached_tokens: t.Optional(Int({ minimum: 0 })) }, open)),
            output_tokens_details: t.Optional(t.Object({ reasoning_tokens: t.Optional(Int({ minimum: 0 })) }, open)),
          },
          "what the call is billed on",
        ),
      ),
    ),
  },
  { ...open, description: "OpenAI Response object; the receipt is in the x-svc-receipt* headers" },
);

export const EmbeddingList = t.Object(
  {
    object: t.Literal("list"),
    data: t.Array(
      t.Object(
        {
          object: t.Literal("embedding"),
          index: Int({ minimum: 0 }),
          embedding: t.Union([t.Array(t.Number()), t.String({ description: "base64 (encoding_format: base64)" })]),
        },
        open,
      ),
    ),
    model: t.String(),
    usage: t.Optional(Usage({ prompt_tokens: Int({ minimum: 0 }), total_tokens: Int({ minimum: 0 }) }, "what the call is billed on")),
  },
  { ...open, description: "OpenAI embedding list; the receipt is in the x-svc-receipt* headers" },
);

export const AssistantReply = t.Object(
  {
    object: t.Literal("assistant.reply"),
    model: t.String(),
    message: t.Object({ role: t.Literal("assistant"), content: t.String() }, closed),
    finish_reason: t.String(),
  },
  { ...closed, description: "The assistant's answer; nothing is stored" },
);

const PerMtok = Nullable(MicroUsd({ description: "integer micro-USD per million tokens; null: not priced (the model is refused)" }));

/** A chat or embedding model's prices and limits, as GET /v1/models and the admin catalogue show them. */
const MtokPricing = t.Object(
  {
    input_micro_usd_per_mtok: PerMtok,
    output_micro_usd_per_mtok: PerMtok,
    cached_input_micro_usd_per_mtok: Nullable(MicroUsd({ description: "cache reads; null: billed at the input price" })),
  },
  closed,
);
const ModelLimits = {
  context_length: Nullable(Int({ minimum: 1 })),
  max_output: Nullable(Int({ minimum: 1 })),
  modalities: t.Array(t.Union([t.Literal("text"), t.Literal("image")])),
};

export const ModelView = t.Object(
  {
    id: t.String(),
    object: t.Literal("model"),
    created: Int({ minimum: 0, description: "Unix seconds" }),
    owned_by: t.Literal("svc"),
    provider: t.String({ description: "the provider that serves it first (its own, else the first available fallback)" }),
    type: t.Union([t.Literal("chat"), t.Literal("embedding")]),
    pricing: MtokPricing,
    ...ModelLimits,
  },
  closed,
);

export const ModelList = t.Object({ object: t.Literal("list"), data: t.Array(ModelView) }, { ...closed, description: "The model catalogue (list object)" });

// ───────────────────────────── GET /v1/admin/providers (admin-catalog.ts) ─────────────────────────────

const AdminProvider = t.Object(
  {
    name: t.String(),
    kind: t.Union([t.Literal("openai"), t.Literal("anthropic"), t.Literal("openai-images"), t.Literal("openai-videos")]),
    base_url_host: Nullable(t.String({ description: "the host (and port) of its base URL only: never user info, path or query" })),
    credential: t.Union([t.Literal("env"), t.Literal("sealed"), t.Literal("none")], { description: "where its API key comes from (never the key)" }),
    api_key_env: Nullable(t.String({ description: "the environment variable svc reads the key from (credential env)" })),
    available: t.Boolean({ description: "its key can be used here; an unavailable provider serves nothing" }),
    unavailable_reason: Nullable(t.String()),
    regions: t.Array(t.String()),
    privacy_tiers: t.Array(t.String(), { description: `the privacy tiers it satisfies: ${PRIVACY_TIERS.join(", ")}` }),
    timeout_secs: t.Number({ exclusiveMinimum: 0 }),
    supports_responses: t.Boolean(),
    models: t.Array(t.String(), { description: "the models it serves as their own provider" }),
    fallback_for: t.Array(t.String(), { description: "the models it is a fallback for" }),
  },
  closed,
);

const AdminModel = t.Object(
  {
    id: t.String(),
    type: t.Union([t.Literal("chat"), t.Literal("embedding"), t.Literal("image"), t.Literal("video")]),
    provider: t.String({ description: "its own provider" }),
    upstream: t.String({ description: "its name at the provider" }),
    fallback_providers: t.Array(t.String()),
    serving_provider: Nullable(t.String({ description: "the available provider that serves it first; null: none can" })),
    listed: t.Boolean({ description: "in GET /v1/models (an available provider serves it)" }),
    pricing: MtokPricing,
    ...ModelLimits,
    price_micro_usd_per_image: Nullable(MicroUsd({ description: "image models" })),
    price_micro_usd_per_second: Nullable(MicroUsd({ description: "video models" })),
    created: Int({ minimum: 0, description: "Unix seconds" }),
  },
  closed,
);

export const AdminCatalog = t.Object(
  {
    loaded_at: t.String({ format: "date-time", description: "when the catalogue in use was read from svc.toml" }),
    providers: t.Array(AdminProvider, { description: "in svc.toml order" }),
    models: t.Array(AdminModel, { description: "every configured model, listed or not, in svc.toml order" }),
  },
  { ...closed, description: "The inference catalogue as the operator sees it; never a key" },
);

// ───────────────────────────── OpenAPI responses of the metered routes ─────────────────────────────

/** OpenAPI response objects, as a route's `detail.responses` takes them (TypeBox schemas are JSON Schema). */
type OpenApiResponses = NonNullable<DocumentDecoration["responses"]>;
const asResponses = (responses: Record<number, unknown>): OpenApiResponses => responses as OpenApiResponses;

const SSE = (what: string) => ({ schema: { type: "string", description: `stream: true — ${what}, then a \`: svc.receipt {…}\` comment line` } });

/** The 200 of a route that streams on request: its JSON reply, or text/event-stream. */
const streamable = (reply: TSchema, what: string) => ({
  description: "The reply (JSON, receipt in the x-svc-receipt* headers), or with stream: true its event stream (receipt as the last comment line)",
  content: { "application/json": { schema: reply }, "text/event-stream": SSE(what) },
});

/**
 * What a metered inference call can answer beyond its route's baseline (core/openapi.ts): the
 * meter's refusals, an unknown model, and the upstream failures of providers/errors.ts; 400 and
 * 403 are in the baseline, listed here for their types. core/openapi.ts points each at the
 * shared error body and keeps these descriptions.
 */
const INFERENCE_ERRORS = {
  400: { description: "invalid_request (param names the field: a translation that cannot express it too), upstream_rejected (the upstream refused the request; not retried elsewhere)" },
  403: { description: "missing_scope (inference), resource_not_allowed (the key's allowed models), privacy_tier_unavailable, region_unavailable, account_suspended, payload_denied, key constraints" },
  402: { description: "insufficient_credit (with x402 payment terms and PAYMENT-REQUIRED), spend_cap_reached, circuit_breaker_tripped" },
  404: { description: "model_not_found: the model is not in this deployment's catalogue" },
  429: { description: "upstream_rate_limited: the upstream answered 429 (Retry-After, retry_after_secs)" },
  502: { description: "upstream_error, upstream_auth_failed, upstream_unavailable: every eligible provider failed" },
  503: { description: "not_priced (the model has no price), model_unavailable (no provider of the model can be called here)" },
  504: { description: "upstream_timeout" },
};

export const ChatResponses = asResponses({ 200: streamable(ChatCompletion, "chat.completion.chunk data events, then data: [DONE]"), ...INFERENCE_ERRORS });
export const ResponsesResponses = asResponses({ 200: streamable(ResponseObject, "response.* events"), ...INFERENCE_ERRORS });
export const MessagesResponses = asResponses({ 200: streamable(AnthropicMessage, "Anthropic message_* and content_block_* events"), ...INFERENCE_ERRORS });
export const EmbeddingsResponses = asResponses({
  200: { description: "The embeddings (receipt in the x-svc-receipt* headers); embeddings do not stream", content: { "application/json": { schema: EmbeddingList } } },
  ...INFERENCE_ERRORS,
});

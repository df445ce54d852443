/**
 * The inference routes (spec §4.3), API key with the "inference" scope:
 *
 *   POST /v1/chat/completions   OpenAI Chat Completions          (chat.ts)
 *   POST /v1/messages           Anthropic Messages               (messages.ts)
 *   POST /v1/responses          OpenAI Responses                 (responses.ts)
 *   POST /v1/embeddings         OpenAI Embeddings                (embeddings.ts)
 *
 * Thin: each hands its body to the pipeline (pipeline.ts) with its dialect. The body schemas
 * are open on purpose — unknown fields pass through to the upstream unchanged — and name only
 * what every call needs; the dialects and translators check the rest with errors that name
 * the field. Docs: docs/inference.md.
 */
import type { TProperties } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import { Int } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { chatDialect } from "./chat.ts";
import type { Dialect } from "./dialect.ts";
import { embeddingsDialect } from "./embeddings.ts";
import { messagesDialect } from "./messages.ts";
import { serveInference } from "./pipeline.ts";
import { responsesDialect } from "./responses.ts";

const tags = ["inference"];
const security = [{ apiKey: [] }];

const SVC_FIELDS = {
  svc_privacy_tier: t.Optional(t.String({ description: "standard | zero_retention | confidential; overrides the key's tier" })),
  svc_region: t.Optional(t.String({ description: "only providers serving from this region" })),
  svc_scrub: t.Optional(t.Boolean({ description: "redact secret and PII shapes from the prompt before it leaves; the count is on the receipt" })),
  svc_run_id: t.Optional(t.String({ description: "chain the receipt into this run (GET /v1/runs)" })),
  svc_context: t.Optional(t.Array(t.Unknown(), { description: "context documents (strings or {content}); fingerprints and their Merkle root go on the receipt, never the content" })),
};

const body = (fields: TProperties, description: string) =>
  t.Object({ model: t.String({ description: "a model id from GET /v1/models" }), ...fields, ...SVC_FIELDS }, { additionalProperties: true, description });

export function inferenceRoutes(ctx: Context) {
  const serve = (dialect: Dialect) => ({ principal, body, request, headers }: { principal: ApiKeyPrincipal; body: unknown; request: Request; headers: Record<string, string | undefined> }) =>
    serveInference(ctx, dialect, { principal, body, signal: request.signal, headers });

  const openai = new Elysia({ prefix: "/v1" })
    .use(guards.apiKey(ctx, "inference"))
    .post("/chat/completions", serve(chatDialect), {
      body: body({ messages: t.Optional(t.Array(t.Unknown())), stream: t.Optional(t.Boolean()) }, "OpenAI Chat Completions request; other fields pass through to the upstream"),
      detail: { summary: "Chat completion (OpenAI shape; stream:true for SSE; the receipt comes as a last \": svc.receipt {…}\" comment before data: [DONE])", tags, security },
    })
    .post("/responses", serve(responsesDialect), {
      body: body({ input: t.Optional(t.Unknown()), stream: t.Optional(t.Boolean()) }, "OpenAI Responses request; previous_response_id is refused"),
      detail: { summary: "Response (OpenAI Responses shape; previous_response_id is refused)", tags, security },
    })
    .post("/embeddings", serve(embeddingsDialect), {
      body: body({ input: t.Optional(t.Unknown()) }, "OpenAI Embeddings request"),
      detail: { summary: "Embeddings (OpenAI shape)", tags, security },
    });

  // Anthropic's clients send their key as x-api-key (older SDKs, curl examples) or as a Bearer
  // token (@anthropic-ai/sdk 1.x). The one API-key guard reads Authorization; giving it the
  // x-api-key value when Authorization is absent keeps one guard (scopes, x402 proofs) for both.
  const anthropic = new Elysia({ prefix: "/v1" })
    .onTransform({ as: "local" }, ({ headers }) => {
      const key = headers["x-api-key"];
      if (!headers.authorization && key) headers.authorization = `Bearer ${key}`;
    })
    .use(guards.apiKey(ctx, "inference"))
    .post("/messages", serve(messagesDialect), {
      body: body({ messages: t.Optional(t.Array(t.Unknown())), max_tokens: t.Optional(Int()), stream: t.Optional(t.Boolean()) }, "Anthropic Messages request (any anthropic-version header)"),
      detail: { summary: "Message (Anthropic shape; auth by x-api-key or Bearer; stream:true for its event sequence, then a \": svc.receipt {…}\" comment)", tags, security },
    });

  return new Elysia().use(openai).use(anthropic);
}

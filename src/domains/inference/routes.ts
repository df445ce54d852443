/**
 * The inference routes (spec §4.3), API key with the "inference" scope:
 *
 *   POST /v1/chat/completions   OpenAI Chat Completions          (chat.ts)
 *   POST /v1/messages           Anthropic Messages               (messages.ts)
 *   POST /v1/responses          OpenAI Responses                 (responses.ts)
 *   POST /v1/embeddings         OpenAI Embeddings                (embeddings.ts)
 *
 * Thin: each hands its body to the pipeline (pipeline.ts) with its dialect. The body schemas
 * (models.ts) are open on purpose — unknown fields pass through to the upstream unchanged — and
 * name what svc reads; the dialects and translators check the rest with errors that name the
 * field. The replies and their error statuses are declared in models.ts. Docs: docs/inference.md.
 */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { arrivalOf } from "../../core/arrivals.ts";
import { guards } from "../../guards.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { chatDialect } from "./chat.ts";
import type { Dialect } from "./dialect.ts";
import { embeddingsDialect } from "./embeddings.ts";
import { messagesDialect } from "./messages.ts";
import * as M from "./models.ts";
import { serveInference } from "./pipeline.ts";
import { responsesDialect } from "./responses.ts";

const tags = ["inference"];
const security = [{ apiKey: [] }];

export function inferenceRoutes(ctx: Context) {
  const serve = (dialect: Dialect) => ({ principal, body, request, headers }: { principal: ApiKeyPrincipal; body: unknown; request: Request; headers: Record<string, string | undefined> }) =>
    serveInference(ctx, dialect, { principal, body, signal: request.signal, headers, arrivedAt: arrivalOf(request) });

  const openai = new Elysia({ prefix: "/v1" })
    .use(guards.apiKey(ctx, "inference"))
    .post("/chat/completions", serve(chatDialect), {
      body: M.ChatBody,
      detail: {
        summary: "Chat completion (OpenAI shape; stream:true for SSE; the receipt comes as a last \": svc.receipt {…}\" comment before data: [DONE])",
        tags,
        security,
        responses: M.ChatResponses,
      },
    })
    .post("/responses", serve(responsesDialect), {
      body: M.ResponsesBody,
      detail: { summary: "Response (OpenAI Responses shape; previous_response_id is refused)", tags, security, responses: M.ResponsesResponses },
    })
    .post("/embeddings", serve(embeddingsDialect), {
      body: M.EmbeddingsBody,
      detail: { summary: "Embeddings (OpenAI shape)", tags, security, responses: M.EmbeddingsResponses },
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
      body: M.MessagesBody,
      detail: {
        summary: "Message (Anthropic shape; auth by x-api-key or Bearer; stream:true for its event sequence, then a \": svc.receipt {…}\" comment)",
        tags,
        security,
        responses: M.MessagesResponses,
      },
    });

  return new Elysia().use(openai).use(anthropic);
}

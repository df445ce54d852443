/**
 * chat: one chat completion on the deployment's mcp.chat_model, through the inference area's
 * pipeline (the same one POST /v1/chat/completions runs): metered and receipted as inference.
 */
import { Type as T } from "@sinclair/typebox";
import { ApiError } from "../../../core/errors.ts";
import { serveChatCompletion } from "../../inference/index.ts";
import { RECEIPT_HEADERS } from "../../receipts/index.ts";
import { defineTool, toolError } from "./types.ts";

interface ChatArgs {
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  max_tokens?: number;
  temperature?: number;
}

export const chat = defineTool<ChatArgs>({
  name: "chat",
  title: "Chat completion",
  description:
    "Ask the deployment's configured language model. Give the conversation as messages (role system, user or assistant; text content); the model's reply comes back as text. Billed per token like POST /v1/chat/completions, with a signed receipt in _meta.",
  scope: "inference",
  input: T.Object(
    {
      messages: T.Array(
        T.Object({ role: T.Union([T.Literal("system"), T.Literal("user"), T.Literal("assistant")]), content: T.String({ maxLength: 1_000_000 }) }, { additionalProperties: false }),
        { minItems: 1, maxItems: 256 },
      ),
      max_tokens: T.Optional(T.Integer({ minimum: 1, maximum: 32_768 })),
      temperature: T.Optional(T.Number({ minimum: 0, maximum: 2 })),
    },
    { additionalProperties: false },
  ),
  metering: "self",
  offered: (ctx) => ctx.config.mcp.chat_model !== "",
  run: async ({ ctx, principal, signal, runId }, args) => {
    let res: Response;
    try {
      res = await serveChatCompletion(ctx, principal, { model: ctx.config.mcp.chat_model, ...args, ...(runId ? { svc_run_id: runId } : {}) }, signal);
    } catch (err) {
      if (err instanceof ApiError) return { result: toolError(`chat failed: ${err.message}`, { type: err.type }) };
      throw err;
    }
    const body = (await res.json()) as { choices?: { message?: { content?: string | null }; finish_reason?: string }[]; usage?: Record<string, number> };
    const choice = body.choices?.[0];
    const h = (name: string) => res.headers.get(name) ?? "";
    return {
      result: {
        content: [{ type: "text", text: choice?.message?.content ?? "" }],
        structuredContent: { model: ctx.config.mcp.chat_model, finish_reason: choice?.finish_reason ?? null, usage: body.usage ?? null },
      },
      receipt: h(RECEIPT_HEADERS.id)
        ? { id: h(RECEIPT_HEADERS.id), receipt: h(RECEIPT_HEADERS.receipt), signature: h(RECEIPT_HEADERS.signature), signer: h(RECEIPT_HEADERS.signer), cost_micro_usd: Number(h(RECEIPT_HEADERS.cost)) }
        : null,
    };
  },
});

/**
 * POST /v1/assistant: a keyless assistant on one configured model (config `assistant`), paid by
 * the operator, under a global daily budget and a per-client-address limit.
 *
 * Decisions:
 * - No meter. Keyless calls have no account to hold credit against, and meter.settle always
 *   writes a usage event and mints a receipt (its hook runs in the same transaction), which the
 *   spec says this route must not do. The assistant keeps its own ledger instead: the day's
 *   spend, one row per UTC day (assistant_spend). That is all it stores — never the
 *   conversation — and it logs no content.
 * - The budget is checked against the worst case, like a reservation: what the day has spent
 *   (SQLite) plus what calls in flight may still cost (memory: one `svc serve` per database, so
 *   one process), plus this call's worst case. A crash forgets the in-flight part, which only
 *   errs towards refusing less. After the call, its actual cost (the upstream's usage) is added
 *   to the day. Failed calls cost nothing.
 * - An exhausted budget is 503 assistant_budget_exhausted with Retry-After until the next UTC
 *   midnight: the service is unavailable to everyone until then, which is not the caller's
 *   rate; 429 stays what it means everywhere else (this client, slow down: the per-IP limit).
 * - Providers, translation and fallback are the inference pipeline's (a Chat request; an
 *   Anthropic-kind model is translated), at the standard privacy tier.
 */
import { ApiError, invalidField } from "../../core/errors.ts";
import { unixSecs } from "../../core/clock.ts";
import { DailyBudget } from "../../core/daily-budget.ts";
import type { Context } from "../../context.ts";
import { chatDialect } from "./chat.ts";
import type { CallContext } from "./dialect.ts";
import { billedUsage, callWithFallback, type PreparedCall } from "./pipeline.ts";
import { costOf, estimateChat } from "./pricing.ts";
import { chatReplyText } from "./dialect.ts";
import type { ChatCompletion, Json } from "./translate/types.ts";

export const MAX_TURNS = 20;
export const MAX_TURN_CHARS = 16_000;


export interface AssistantTurn {
  role: "user" | "assistant";
  content: string;
}

export interface AssistantReply {
  object: "assistant.reply";
  model: string;
  message: { role: "assistant"; content: string };
  finish_reason: string;
}

/** The assistant's day budget: core/daily-budget.ts over its own table (assistant_spend). */
export function assistantBudget(ctx: Context): DailyBudget {
  return new DailyBudget("assistant", ctx.clock, {
    spent: (day) => ctx.db.query<{ spent: number }, [string]>("SELECT spent_micro_usd AS spent FROM assistant_spend WHERE day = ?").get(day)?.spent ?? 0,
    add: (day, cost) =>
      void ctx.db
        .query("INSERT INTO assistant_spend (day, spent_micro_usd, requests) VALUES (?1, ?2, 1) ON CONFLICT (day) DO UPDATE SET spent_micro_usd = spent_micro_usd + ?2, requests = requests + 1")
        .run(day, cost),
  }, () => ctx.config.assistant.daily_budget_micro_usd);
}

function turnsOf(body: unknown): { messages: AssistantTurn[]; maxTokens: number | undefined } {
  const b = (body ?? {}) as Json;
  const messages = b.messages;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_TURNS) throw invalidField("messages", `must be an array of 1-${MAX_TURNS} turns`);
  const turns = messages.map((m, i): AssistantTurn => {
    const t = (m ?? {}) as Json;
    if (t.role !== "user" && t.role !== "assistant") throw invalidField(`messages[${i}].role`, "must be user or assistant");
    if (typeof t.content !== "string" || t.content.length === 0 || t.content.length > MAX_TURN_CHARS) throw invalidField(`messages[${i}].content`, `must be a string of 1-${MAX_TURN_CHARS} characters`);
    return { role: t.role, content: t.content };
  });
  if (turns.at(-1)!.role !== "user") throw invalidField("messages", "the last turn must be the user's");
  const max = b.max_tokens;
  if (max !== undefined && (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1)) throw invalidField("max_tokens", "must be a positive integer");
  return { messages: turns, maxTokens: max as number | undefined };
}

export async function answer(ctx: Context, budget: DailyBudget, body: unknown, signal: AbortSignal): Promise<AssistantReply> {
  const { messages, maxTokens } = turnsOf(body);
  const cfg = ctx.config.assistant;
  const model = ctx.catalog.current().model(cfg.model);
  if (!model || model.type !== "chat") throw new ApiError(503, "assistant_unavailable", "the assistant's model is not in the catalogue right now");
  const providers = ctx.catalog
    .current()
    .servingProviders(model)
    .filter((p) => p.privacyTiers.includes("standard"));
  if (providers.length === 0) throw new ApiError(503, "assistant_unavailable", "no provider can serve the assistant's model right now");

  const request: Json = { model: model.id, messages, max_tokens: Math.min(maxTokens ?? cfg.max_output_tokens, cfg.max_output_tokens) };
  const estimate = estimateChat(model, request);
  const call: CallContext = {
    model,
    body: request,
    stream: false,
    id: `chatcmpl-assistant-${unixSecs(ctx.clock.now())}`,
    created: unixSecs(ctx.clock.now()),
    promptTokens: estimate.promptTokens,
    outputTokens: estimate.outputTokens,
    forwardHeaders: {},
  };
  const prepared: PreparedCall = {
    dialect: chatDialect,
    call,
    providers,
    options: { privacyTier: "standard", region: null, scrub: false, runId: null, context: null },
    tier: "standard",
    scrubbed: null,
    // Keyless and accountless: no account's guardrails or model routes apply.
    guard: null,
    routedFrom: null,
    amount: estimate.amount,
  };

  const hold = budget.hold(estimate.amount);
  let cost = 0;
  try {
    const answered = await callWithFallback(ctx, prepared, signal);
    const reply = chatDialect.reply(answered.provider, answered.reply!.json, answered.reply!.text, call);
    cost = costOf(model, billedUsage(reply.usage, reply.produced, call.promptTokens, true));
    const completion = JSON.parse(reply.body) as ChatCompletion;
    const choice = completion.choices?.[0];
    return {
      object: "assistant.reply",
      model: model.id,
      message: { role: "assistant", content: typeof choice?.message?.content === "string" ? choice.message.content : chatReplyText(completion as unknown as Json) },
      finish_reason: choice?.finish_reason ?? "stop",
    };
  } finally {
    budget.finish(hold, cost);
  }
}

/**
 * A chat completion whose answer another area reads instead of forwarding (an eval case, a
 * juror's vote): the same pipeline as POST /v1/chat/completions — catalogue, eligibility,
 * reservation, fallback, settle on the upstream's usage, a receipt per call — handing back the
 * reply's text, what it cost and its receipt. Never streamed.
 */
import type { Settlement } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import { chatDialect } from "./chat.ts";
import { type Caller, completeCall } from "./pipeline.ts";
import type { TokenUsage } from "./pricing.ts";

export interface ChatCallRequest {
  caller: Caller;
  /** A chat model id from the catalogue. */
  model: string;
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  maxTokens?: number;
  temperature?: number;
  /** Ask for a JSON object (response_format json_object). */
  json?: boolean;
  /** Chains the call's receipt into a run (svc_run_id). */
  runId?: string;
  /**
   * Serve exactly this model even when the account routes it elsewhere (inference/model-rerouting.ts):
   * an eval run on model A must measure A, or a route adopted from its evidence would rewrite it.
   */
  exactModel?: boolean;
  signal?: AbortSignal;
}

export interface ChatCallAnswer {
  /** The assistant message's text ("" when the model answered with none). */
  text: string;
  /** The provider that answered. */
  provider: string;
  usage: TokenUsage;
  settlement: Settlement;
}

const textOf = (json: Record<string, unknown>): string => {
  const choice = (json.choices as { message?: { content?: unknown } }[] | undefined)?.[0];
  const content = choice?.message?.content;
  return typeof content === "string" ? content : "";
};

/** One metered chat call; throws the route's own ApiError (402, 404 model_not_found, upstream errors) with nothing billed. */
export async function completeChat(ctx: Context, req: ChatCallRequest): Promise<ChatCallAnswer> {
  const body: Record<string, unknown> = { model: req.model, messages: req.messages, stream: false };
  if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.json) body.response_format = { type: "json_object" };
  if (req.runId) body.svc_run_id = req.runId;
  const { value, settlement, usage } = await completeCall(
    ctx,
    chatDialect,
    { principal: req.caller, body, signal: req.signal ?? new AbortController().signal, headers: {}, exactModel: req.exactModel },
    (_json, provider, reply) => ({ text: textOf(JSON.parse(reply.body) as Record<string, unknown>), provider }),
  );
  return { ...value, usage, settlement };
}

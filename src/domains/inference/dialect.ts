/**
 * A dialect is one client API (chat completions, messages, responses, embeddings) and what it
 * takes to serve it from each provider kind: the upstream call, the reply, the stream. The four
 * dialects (chat.ts, messages.ts, responses.ts, embeddings.ts) hold only that; the pipeline
 * (pipeline.ts) holds the rules common to all — model, eligibility, scrubbing, reserve,
 * fallback, settle — so a rule is written once.
 *
 * Same shape as the provider: forwarded with the svc_ fields stripped and the model renamed
 * (every other field as sent, the reply as the upstream wrote it). Another shape: translated
 * both ways with the translators in translate/.
 */
import type { ModelConfig } from "./config.ts";
import type { MicroUsd } from "../../core/money.ts";
import type { CatalogModel, CatalogProvider } from "./catalog.ts";
import { malformedResponse } from "./providers/errors.ts";
import type { Endpoint } from "./providers/types.ts";
import type { StreamTranslator } from "./streaming.ts";
import type { Json } from "./translate/types.ts";
import type { NormalUsage } from "./translate/usage.ts";
import type { TextCounter } from "./tokens.ts";

export type ClientApi = "chat" | "messages" | "responses" | "embeddings";

/** What a dialect needs to know about one call. */
export interface CallContext {
  model: CatalogModel;
  /** The client's body: svc_ fields stripped, scrubbed when asked; `model` is still the client's id. */
  body: Json;
  stream: boolean;
  /** The id a translated reply carries (chatcmpl-…, msg_…, resp_…); passthrough replies keep the upstream's. */
  id: string;
  /** Unix seconds, for translated replies. */
  created: number;
  /** Prompt and output tokens as reserved (pricing.ts estimates). */
  promptTokens: number;
  outputTokens: number;
  /** Request headers a same-shape upstream should see (anthropic-beta). */
  forwardHeaders: Record<string, string>;
}

export interface UpstreamPlan {
  endpoint: Endpoint;
  body: object;
  headers?: Record<string, string>;
}

export interface Reply {
  /** The response body for the client (JSON text). */
  body: string;
  /** The upstream's usage, or null when it reported none. */
  usage: NormalUsage | null;
  /** The text and tool arguments of the reply, counted when usage is missing. */
  produced(): string;
}

export interface Estimate {
  amount: MicroUsd;
  promptTokens: number;
  outputTokens: number;
}

export interface Dialect {
  api: ClientApi;
  /** The model type this API serves. */
  modelType: ModelConfig["type"];
  /** Checks of the client's body the translators do not make, before anything is reserved. */
  check(body: Json): void;
  /** The reservation (worst case); `count` counts one prompt text (the account's cached counts, tokens.ts). */
  estimate(model: CatalogModel, body: Json, count: TextCounter): Estimate;
  /** Whether the provider can serve this API at all (directly or translated). */
  serves(provider: CatalogProvider): boolean;
  upstream(provider: CatalogProvider, call: CallContext): UpstreamPlan;
  /** A non-streamed upstream reply (already parsed) → the client's body and the usage. */
  reply(provider: CatalogProvider, json: Json, text: string, call: CallContext): Reply;
  stream(provider: CatalogProvider, call: CallContext): StreamTranslator;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** An upstream stream frame's JSON; anything else is an upstream error naming the provider. */
export function parseFrame(provider: string, data: string): Json {
  try {
    const value: unknown = JSON.parse(data);
    if (isObject(value)) return value;
  } catch {
    // reported below
  }
  throw malformedResponse(provider, "a stream event that is not a JSON object");
}

/** A non-streamed reply must be a JSON object. */
export function replyObject(provider: string, value: unknown): Json {
  if (!isObject(value)) throw malformedResponse(provider, "a body that is not a JSON object");
  return value;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Text and tool calls of a Chat Completion (every choice). */
export function chatReplyText(json: Json): string {
  let out = "";
  for (const choice of Array.isArray(json.choices) ? json.choices : []) {
    const m = isObject(choice) && isObject(choice.message) ? choice.message : {};
    out += str(m.content) + str(m.refusal);
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      const fn = isObject(call) && isObject(call.function) ? call.function : {};
      out += str(fn.name) + str(fn.arguments);
    }
  }
  return out;
}

/** Text and tool calls of an Anthropic Message. */
export function anthropicReplyText(json: Json): string {
  let out = "";
  for (const block of Array.isArray(json.content) ? json.content : []) {
    if (!isObject(block)) continue;
    if (block.type === "text") out += str(block.text);
    else if (block.type === "tool_use") out += str(block.name) + JSON.stringify(block.input ?? {});
    else if (block.type === "thinking") out += str(block.thinking);
  }
  return out;
}

/** Text and function calls of a Response object. */
export function responsesReplyText(json: Json): string {
  let out = "";
  for (const item of Array.isArray(json.output) ? json.output : []) {
    if (!isObject(item)) continue;
    if (item.type === "function_call") out += str(item.name) + str(item.arguments);
    for (const part of Array.isArray(item.content) ? item.content : []) if (isObject(part)) out += str(part.text) + str(part.refusal);
  }
  return out;
}

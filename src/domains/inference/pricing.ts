/**
 * What an inference call may cost (the reservation) and what it did cost (the settlement), in
 * integer micro-USD from the model's per-million-token prices.
 *
 * Worst case of a chat call (OpenAI chat, Anthropic messages or Responses body, as sent):
 *
 *   prompt  = ⌈counted × 1.1⌉ + 4 per message + 3 + 1600 per image + ⌈opaque chars ÷ 4⌉
 *   output  = (max_completion_tokens | max_tokens | max_output_tokens, capped at max_output;
 *              max_output when the request names none) × n
 *   reserve = ⌈(prompt × input price + output × output price) ÷ 1,000,000⌉
 *
 * `counted` is the tokenizer's count of every text in the messages, system prompt and
 * instructions, plus the JSON of tools, functions and response formats (their schemas reach the
 * model too). The 10% margin covers tokenizers other than o200k and the upstream's chat framing.
 * An image costs at most ~1,600 tokens at the major providers, whatever its bytes; other binary
 * parts (audio, files, documents) are counted at a token per 4 characters of their base64. The
 * reservation is a hold, not a charge: settle bills the usage the upstream reports.
 *
 * Fail closed: a model without an input price (or, for chat, an output price) is refused with
 * 503 not_priced, never served for free.
 */
import type { ModelConfig } from "./config.ts";
import { invalidField } from "../../core/errors.ts";
import { requirePrice } from "../../core/meter.ts";
import type { MicroUsd } from "../../core/money.ts";
import { countTokens, type TextCounter } from "./tokens.ts";

export const PROMPT_MARGIN_PERCENT = 10;
export const TOKENS_PER_MESSAGE = 4;
export const TOKENS_PER_REQUEST = 3;
export const TOKENS_PER_IMAGE = 1600;
export const OPAQUE_CHARS_PER_TOKEN = 4;

/** The parts of a model entry pricing reads. */
export type PricedModel = Pick<
  ModelConfig,
  "id" | "type" | "input_micro_usd_per_mtok" | "output_micro_usd_per_mtok" | "cached_input_micro_usd_per_mtok" | "max_output" | "context_length"
>;

/**
 * Usage as settle bills it. input_tokens counts EVERY prompt token, cached ones included;
 * cached_input_tokens says how many of them were cache reads (billed at the cached price).
 * The usageFrom* helpers below convert each upstream's report to this.
 */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
}

export interface ChatEstimate {
  amount: MicroUsd;
  /** Prompt tokens as reserved (margin and allowances included). */
  promptTokens: number;
  /** Output tokens as reserved (all choices). */
  outputTokens: number;
}

export interface EmbeddingEstimate {
  amount: MicroUsd;
  inputTokens: number;
}

type Json = Record<string, unknown>;

const IMAGE_PARTS = new Set(["image_url", "image", "input_image"]);
const OPAQUE_PARTS = new Set(["input_audio", "file", "input_file", "document"]);
/** Keys whose values are framing, not content the model reads as text. */
const FRAMING_KEYS = new Set(["type", "role", "cache_control"]);

interface Tally {
  texts: string[];
  images: number;
  opaqueChars: number;
}

/** Collects every string a content tree holds, standing images and binary parts aside. */
function collect(node: unknown, tally: Tally): void {
  if (typeof node === "string") tally.texts.push(node);
  else if (Array.isArray(node)) for (const item of node) collect(item, tally);
  else if (node && typeof node === "object") {
    const type = (node as Json).type;
    if (typeof type === "string" && IMAGE_PARTS.has(type)) {
      tally.images++;
      return;
    }
    if (typeof type === "string" && OPAQUE_PARTS.has(type)) {
      tally.opaqueChars += JSON.stringify(node).length;
      return;
    }
    for (const [key, value] of Object.entries(node)) if (!FRAMING_KEYS.has(key)) collect(value, tally);
  }
}

/** Prompt tokens of a chat body in any of the three shapes, margin and allowances included (`count`: how one text is counted). */
export function countPromptTokens(request: Json, count: TextCounter = countTokens): number {
  const tally: Tally = { texts: [], images: 0, opaqueChars: 0 };
  let messages = 0;
  for (const key of ["messages", "input"] as const) {
    const value = request[key];
    if (Array.isArray(value)) {
      messages += value.length;
      collect(value, tally);
    } else if (typeof value === "string") {
      messages += 1;
      tally.texts.push(value);
    }
  }
  for (const key of ["system", "instructions"] as const) {
    if (request[key] !== undefined && request[key] !== null) {
      messages += 1;
      collect(request[key], tally);
    }
  }
  for (const key of ["tools", "functions", "response_format", "text"] as const) {
    if (request[key] !== undefined && request[key] !== null) tally.texts.push(JSON.stringify(request[key]));
  }
  let counted = 0;
  for (const text of tally.texts) counted += count(text);
  return (
    Math.ceil((counted * (100 + PROMPT_MARGIN_PERCENT)) / 100) +
    messages * TOKENS_PER_MESSAGE +
    TOKENS_PER_REQUEST +
    tally.images * TOKENS_PER_IMAGE +
    Math.ceil(tally.opaqueChars / OPAQUE_CHARS_PER_TOKEN)
  );
}

function positiveInt(request: Json, field: string): number | undefined {
  const value = request[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) throw invalidField(field, "must be a positive integer");
  return value;
}

/** ⌈Σ tokens × price ÷ 10^6⌉: one rounding per call, up, so no call is billed below the price list (or at 0 for non-zero use). */
function priceOf(lines: [tokens: number, microUsdPerMtok: number][]): MicroUsd {
  let total = 0n;
  for (const [tokens, price] of lines) {
    if (!Number.isSafeInteger(tokens) || tokens < 0) throw new RangeError("token counts must be non-negative integers");
    total += BigInt(tokens) * BigInt(price);
  }
  const cost = Number((total + 999_999n) / 1_000_000n);
  if (!Number.isSafeInteger(cost)) throw new RangeError("cost overflows");
  return cost;
}

/** Output tokens a request may produce in the worst case (all choices). */
export function worstCaseOutputTokens(model: PricedModel, request: Json, promptTokens: number): number {
  const requested = positiveInt(request, "max_completion_tokens") ?? positiveInt(request, "max_tokens") ?? positiveInt(request, "max_output_tokens");
  const choices = positiveInt(request, "n") ?? 1;
  let perChoice: number;
  if (requested !== undefined) perChoice = model.max_output !== undefined ? Math.min(requested, model.max_output) : requested;
  else if (model.max_output !== undefined) perChoice = model.max_output;
  else if (model.context_length !== undefined) perChoice = Math.max(1, model.context_length - promptTokens);
  else throw invalidField("max_tokens", `model ${model.id} declares no max_output, so the request must set max_tokens (or max_completion_tokens)`);
  return perChoice * choices;
}

/** The reservation for a chat call: its worst-case cost. Throws 503 not_priced for an unpriced model, 400 for a bad max_tokens or n. */
export function estimateChat(model: PricedModel, request: Json, count: TextCounter = countTokens): ChatEstimate {
  const input = requirePrice(model.input_micro_usd_per_mtok, `model ${model.id}`);
  const output = requirePrice(model.output_micro_usd_per_mtok, `model ${model.id} (output)`);
  // A cached price above the input price would be odd, but the worst case must cover it.
  const promptPrice = Math.max(input, model.cached_input_micro_usd_per_mtok ?? 0);
  const promptTokens = countPromptTokens(request, count);
  const outputTokens = worstCaseOutputTokens(model, request, promptTokens);
  return { amount: priceOf([[promptTokens, promptPrice], [outputTokens, output]]), promptTokens, outputTokens };
}

/** Input tokens of an embeddings body: strings counted (with the margin), token-id arrays taken at their length. */
export function countEmbeddingTokens(input: unknown): number {
  const items = Array.isArray(input) && input.length > 0 && typeof input[0] !== "number" ? (input as unknown[]) : [input];
  let counted = 0;
  let ids = 0;
  for (const item of items) {
    if (typeof item === "string") counted += countTokens(item);
    else if (Array.isArray(item) && item.every((v) => typeof v === "number")) ids += item.length;
    else throw invalidField("input", "must be a string, an array of strings, or token ids");
  }
  return Math.ceil((counted * (100 + PROMPT_MARGIN_PERCENT)) / 100) + ids;
}

export function estimateEmbedding(model: PricedModel, request: Json): EmbeddingEstimate {
  const input = requirePrice(model.input_micro_usd_per_mtok, `model ${model.id}`);
  const inputTokens = countEmbeddingTokens(request.input);
  return { amount: priceOf([[inputTokens, input]]), inputTokens };
}

/**
 * What a call cost from the usage the upstream reported: uncached input at the input price,
 * cache reads at the cached price (the input price when none is set), output at the output
 * price; one rounding, up.
 */
export function costOf(model: PricedModel, usage: TokenUsage): MicroUsd {
  const input = requirePrice(model.input_micro_usd_per_mtok, `model ${model.id}`);
  const output = usage.output_tokens > 0 || model.type === "chat" ? requirePrice(model.output_micro_usd_per_mtok, `model ${model.id} (output)`) : 0;
  const cached = Math.min(usage.cached_input_tokens ?? 0, usage.input_tokens);
  return priceOf([
    [usage.input_tokens - cached, input],
    [cached, model.cached_input_micro_usd_per_mtok ?? input],
    [usage.output_tokens, output],
  ]);
}

const count = (v: unknown): number => (typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : 0);

/** OpenAI chat or embeddings usage: prompt_tokens already include prompt_tokens_details.cached_tokens. */
export function usageFromOpenAI(u: Json | null | undefined): TokenUsage {
  const details = (u?.prompt_tokens_details ?? {}) as Json;
  return { input_tokens: count(u?.prompt_tokens), output_tokens: count(u?.completion_tokens), cached_input_tokens: count(details.cached_tokens) };
}

/** Responses usage: input_tokens already include input_tokens_details.cached_tokens. */
export function usageFromResponses(u: Json | null | undefined): TokenUsage {
  const details = (u?.input_tokens_details ?? {}) as Json;
  return { input_tokens: count(u?.input_tokens), output_tokens: count(u?.output_tokens), cached_input_tokens: count(details.cached_tokens) };
}

/**
 * Anthropic usage: input_tokens EXCLUDE cache reads and cache writes, which come separately.
 * Cache writes are billed as input here (Anthropic charges them at 1.25× input; a model whose
 * traffic writes much cache should carry an input price that allows for it).
 */
export function usageFromAnthropic(u: Json | null | undefined): TokenUsage {
  const reads = count(u?.cache_read_input_tokens);
  return { input_tokens: count(u?.input_tokens) + reads + count(u?.cache_creation_input_tokens), output_tokens: count(u?.output_tokens), cached_input_tokens: reads };
}

/**
 * What the upstream stub "generates": deterministic replies with real token counts, shared by
 * its OpenAI and Anthropic faces (upstream-openai.ts, upstream-anthropic.ts).
 *
 * The reply to a prompt is `reply to: <first 8 words of the last user text>` (ASCII only), plus
 * ` [images: N]` when the last user turn carried images; or exactly N filler tokens when the
 * test asks (x-stub-output-tokens). Tokens are o200k_base's, so usage numbers are the real
 * count of what was sent, and a stream's deltas are one token each.
 */
import { decode, encode } from "gpt-tokenizer/encoding/o200k_base";

const PLAIN = { disallowedSpecial: new Set<string>() };
const FILLER = " lorem";

export const countText = (text: string): number => (text ? encode(text, PLAIN).length : 0);

export type Finish = "stop" | "length" | "stop_sequence";

export interface Generated {
  text: string;
  /** One entry per output token: the stream's deltas, in order; they join to `text`. */
  pieces: string[];
  tokens: number;
  finish: Finish;
  /** The stop sequence met, when finish is stop_sequence. */
  stopSequence: string | null;
}

export interface GenerateInput {
  /** The last user turn's text. */
  prompt: string;
  images: number;
  maxTokens?: number;
  /** Exactly this many output tokens of filler (before max_tokens and stop sequences apply). */
  outputTokens?: number;
  stop?: string[];
  /** Answer JSON: an object holding the reply, or one shaped by a JSON schema. */
  json?: { schema?: unknown } | null;
  /** The upstream model name (without its @behaviour): picks a `[[say@MODEL …]]` directive. */
  model?: string;
  /** Where `[[say …]]` directives are looked for (the system and user text); the prompt when absent. */
  script?: string;
}

/**
 * Scripted replies, for callers that read what a model said (evals, jurors, guardrails on the
 * output): `[[say TEXT]]` anywhere in the prompt makes the reply exactly TEXT; `[[say@MODEL TEXT]]`
 * applies only when the request names that upstream model, and wins over a plain one.
 */
const SAY = /\[\[say(?:@([A-Za-z0-9._:-]+))? ([\s\S]*?)\]\]/g;

export function saidText(prompt: string, model: string | undefined): string | null {
  let plain: string | null = null;
  for (const m of prompt.matchAll(SAY)) {
    if (m[1] === undefined) plain ??= m[2]!;
    else if (m[1] === model) return m[2]!;
  }
  return plain;
}

export function replyText(prompt: string, images: number): string {
  const words = prompt.replace(/[^\x20-\x7e]+/g, " ").trim().split(/\s+/).filter(Boolean).slice(0, 8);
  return `reply to: ${words.join(" ")}${images ? ` [images: ${images}]` : ""}`;
}

function filler(n: number): number[] {
  const tokens = encode("reply", PLAIN);
  const unit = encode(FILLER, PLAIN);
  while (tokens.length < n) tokens.push(...unit);
  return tokens.slice(0, n);
}

export function generate(input: GenerateInput): Generated {
  let tokens: number[];
  let text: string;
  if (input.outputTokens !== undefined) {
    tokens = filler(input.outputTokens);
    text = decode(tokens);
  } else if (saidText(input.script ?? input.prompt, input.model) !== null) {
    text = saidText(input.script ?? input.prompt, input.model)!;
    tokens = encode(text, PLAIN);
  } else {
    const reply = replyText(input.prompt, input.images);
    text = input.json ? JSON.stringify(input.json.schema ? sampleFromSchema(input.json.schema, reply) : { reply }) : reply;
    tokens = encode(text, PLAIN);
  }
  let finish: Finish = "stop";
  let stopSequence: string | null = null;
  for (const s of input.stop ?? []) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0) {
      text = text.slice(0, at);
      tokens = encode(text, PLAIN);
      finish = "stop_sequence";
      stopSequence = s;
      break;
    }
  }
  if (input.maxTokens !== undefined && tokens.length > input.maxTokens) {
    tokens = tokens.slice(0, input.maxTokens);
    text = decode(tokens);
    finish = "length";
    stopSequence = null;
  }
  return { text, pieces: tokens.map((t) => decode([t])), tokens: tokens.length, finish, stopSequence };
}

/** A value that satisfies a (simple) JSON schema: tool arguments and json_schema replies. */
export function sampleFromSchema(schema: unknown, text = "stub"): unknown {
  const s = (schema ?? {}) as Record<string, any>;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "object" || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) out[k] = sampleFromSchema(v, text);
    return out;
  }
  if (type === "array") return [sampleFromSchema(s.items, text)];
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "null") return null;
  return text;
}

/** Splits a string into token-sized pieces (tool-call argument deltas). */
export const piecesOf = (text: string): string[] => encode(text, PLAIN).map((t) => decode([t]));

/** Text of a content value in any of the shapes (string, or parts with text / input_text / output_text). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: any) => (typeof p === "string" ? p : p && typeof p.text === "string" && p.type !== "tool_use" ? p.text : p?.type === "tool_result" ? textOf(p.content) : ""))
    .filter(Boolean)
    .join(" ");
}

export function imagesIn(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  return content.filter((p: any) => p && (p.type === "image_url" || p.type === "image" || p.type === "input_image")).length;
}

export const sleep = (ms: number) => (ms > 0 ? Bun.sleep(ms) : Promise.resolve());

/** "data: {json}\n\n" (OpenAI chat streams). */
export const dataFrame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
/** "event: type\ndata: {json}\n\n" (Anthropic and Responses streams). */
export const eventFrame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Scripted tool calls, for agent loops: directives in the request's system or user text.
 *   [[call NAME {json args}]]   the k-th directive (from 0) is called on the turn that follows k
 *                               earlier tool calls in the conversation; once all are used, the
 *                               model answers with text
 *   [[loop NAME {json args}]]   every turn calls NAME (an agent that never stops by itself)
 * Only tools the request offers are called; a directive naming another tool is skipped.
 */
export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

const DIRECTIVE = /\[\[(call|loop) ([A-Za-z0-9_-]+) (\{.*?\})\]\]/gs;

export function scriptedCall(texts: string[], priorCalls: number, offered: string[]): ScriptedCall | null {
  const calls: ScriptedCall[] = [];
  for (const text of texts) {
    for (const m of text.matchAll(DIRECTIVE)) {
      if (!offered.includes(m[2]!)) continue;
      const call = { name: m[2]!, args: JSON.parse(m[3]!) as Record<string, unknown> };
      if (m[1] === "loop") return call;
      calls.push(call);
    }
  }
  return calls[priorCalls] ?? null;
}

/**
 * svc_scrub: secret and PII shapes redacted from the outbound prompt before any upstream sees
 * it; the receipt says how many (units.scrubbed), never what. The shapes and their checks are
 * core/redact.ts (shared with the guardrails); this file knows where a prompt's text is.
 *
 * What is scrubbed: every string of the prompt (messages and their text parts, system prompt,
 * instructions, tool results and tool-call arguments in the history, embedding inputs). Not
 * scrubbed: images, audio, files and documents (binary; editing base64 would corrupt them),
 * tool definitions (schemas the upstream must parse) and structural fields (roles, ids, names).
 */
import { redactShapes } from "../../core/redact.ts";

export interface Scrubbed {
  text: string;
  count: number;
}

/** Redacts every secret and PII shape in one string. */
export function scrubText(text: string): Scrubbed {
  const r = redactShapes(text);
  return { text: r.text, count: r.count };
}

/** Content parts that are binary or referenced, never text: left as they are. */
const OPAQUE_PARTS = new Set(["image_url", "image", "input_image", "input_audio", "file", "input_file", "document"]);
/** Structural fields: names and ids the upstream matches on, not words the model reads. */
const STRUCTURAL_KEYS = new Set(["type", "role", "id", "tool_call_id", "tool_use_id", "call_id", "name", "cache_control", "status"]);

/** Copies a prompt value with every text string passed through `edit`. */
function mapValue(value: unknown, edit: (text: string) => string): unknown {
  if (typeof value === "string") return edit(value);
  if (Array.isArray(value)) return value.map((v) => mapValue(v, edit));
  if (value && typeof value === "object") {
    const type = (value as { type?: unknown }).type;
    if (typeof type === "string" && OPAQUE_PARTS.has(type)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = STRUCTURAL_KEYS.has(k) ? v : mapValue(v, edit);
    return out;
  }
  return value;
}

/** The body fields that hold the prompt, per client API. */
const PROMPT_FIELDS = {
  chat: ["messages"],
  messages: ["system", "messages"],
  responses: ["instructions", "input"],
  embeddings: ["input"],
} as const;

export type PromptShape = keyof typeof PROMPT_FIELDS;

/** A copy of the request body with every text string of its prompt passed through `edit` (svc_scrub, input guardrails). */
export function mapPrompt<T extends Record<string, unknown>>(shape: PromptShape, body: T, edit: (text: string) => string): T {
  const out: Record<string, unknown> = { ...body };
  for (const field of PROMPT_FIELDS[shape]) if (out[field] !== undefined) out[field] = mapValue(out[field], edit);
  return out as T;
}

/** A copy of the request body with its prompt scrubbed, and how many redactions were made. */
export function scrubPrompt<T extends Record<string, unknown>>(shape: PromptShape, body: T): { body: T; count: number } {
  let count = 0;
  const out = mapPrompt(shape, body, (text) => {
    const r = scrubText(text);
    count += r.count;
    return r.text;
  });
  return { body: out, count };
}

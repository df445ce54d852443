/**
 * A Chat request to an OpenAI-compatible upstream is forwarded, not translated: every field the
 * client sent reaches the upstream unchanged (spec §4.3: unknown OpenAI-shape fields pass
 * through), with two exceptions the gateway needs —
 * - `model` becomes the upstream's name for the model;
 * - a streaming request always asks for stream_options.include_usage, because the meter
 *   settles on the upstream's reported usage. The client's other stream_options are kept.
 *   When the client did not ask for usage, the route drops the usage-only chunk
 *   (isUsageOnlyChunk) so the client sees exactly the stream it requested.
 * svc_ fields are stripped before this (svc-fields.ts).
 */
import type { ChatChunk, ChatRequest } from "./types.ts";
import { streamUsageRequested } from "./usage.ts";

export function chatPassthrough(body: ChatRequest, upstreamModel: string): { body: ChatRequest; clientWantsUsage: boolean } {
  const clientWantsUsage = streamUsageRequested(body);
  const out: ChatRequest = { ...body, model: upstreamModel };
  if (body.stream === true) out.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
  return { body: out, clientWantsUsage };
}

/** The final chunk include_usage adds: no choices, only usage. */
export function isUsageOnlyChunk(chunk: ChatChunk): boolean {
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null;
}

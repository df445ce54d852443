/**
 * Token usage in every shape, and one normal form for metering.
 *
 * The normal form follows OpenAI's convention: `input_tokens` counts EVERY prompt token,
 * cached or not, and `cached_input_tokens` says how many of those were read from a prompt cache
 * (so they can be priced at the cached rate: uncached = input_tokens − cached_input_tokens).
 *
 * Anthropic counts differently: its `input_tokens` are only the tokens after the last cache
 * breakpoint, with `cache_read_input_tokens` (read from cache) and `cache_creation_input_tokens`
 * (written to cache) reported beside them. So:
 *   normal.input_tokens        = input_tokens + cache_read_input_tokens + cache_creation_input_tokens
 *   normal.cached_input_tokens = cache_read_input_tokens
 * Cache writes count as ordinary input: svc prices input, cached input and output only, and
 * Anthropic's write premium is the operator's to fold into the model's input price.
 *
 * OpenAI → Anthropic is the inverse: input_tokens = prompt_tokens − cached_tokens,
 * cache_read_input_tokens = cached_tokens, cache_creation_input_tokens = 0 (OpenAI-compatible
 * servers never report cache writes). Anthropic → OpenAI: prompt_tokens = the normal input,
 * prompt_tokens_details.cached_tokens = cache reads. Both directions round-trip exactly when
 * nothing was written to the cache.
 */
import type { AnthUsage, ChatUsage, ResponsesUsage } from "./types.ts";

export interface NormalUsage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
}

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads usage from any of the three shapes (Chat, Responses, Anthropic), or null when the
 * value carries no usage at all. Anthropic and Responses both say `input_tokens`; they are told
 * apart by Anthropic's cache_* fields (absent in both, the two readings agree anyway).
 */
export function normalizeUsage(usage: unknown): NormalUsage | null {
  if (!isObject(usage)) return null;
  if ("prompt_tokens" in usage || "completion_tokens" in usage) {
    const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
    return {
      input_tokens: count(usage.prompt_tokens),
      output_tokens: count(usage.completion_tokens),
      cached_input_tokens: count(details.cached_tokens),
    };
  }
  if ("cache_read_input_tokens" in usage || "cache_creation_input_tokens" in usage) {
    const read = count(usage.cache_read_input_tokens);
    return {
      input_tokens: count(usage.input_tokens) + read + count(usage.cache_creation_input_tokens),
      output_tokens: count(usage.output_tokens),
      cached_input_tokens: read,
    };
  }
  if ("input_tokens" in usage || "output_tokens" in usage) {
    const details = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
    return {
      input_tokens: count(usage.input_tokens),
      output_tokens: count(usage.output_tokens),
      cached_input_tokens: count(details.cached_tokens),
    };
  }
  return null;
}

const ZERO: NormalUsage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };

export function chatUsageToAnthropic(usage: ChatUsage | null | undefined): AnthUsage {
  const n = normalizeUsage(usage) ?? ZERO;
  return {
    input_tokens: n.input_tokens - n.cached_input_tokens,
    output_tokens: n.output_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: n.cached_input_tokens,
  };
}

export function anthropicUsageToChat(usage: Partial<AnthUsage> | null | undefined): ChatUsage {
  return normalToChatUsage(normalizeUsage({ cache_read_input_tokens: 0, ...usage }) ?? ZERO);
}

export function normalToChatUsage(n: NormalUsage): ChatUsage {
  return {
    prompt_tokens: n.input_tokens,
    completion_tokens: n.output_tokens,
    total_tokens: n.input_tokens + n.output_tokens,
    prompt_tokens_details: { cached_tokens: n.cached_input_tokens },
  };
}

export function chatUsageToResponses(usage: ChatUsage | null | undefined): ResponsesUsage {
  const n = normalizeUsage(usage) ?? ZERO;
  const details = isObject(usage?.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    input_tokens: n.input_tokens,
    input_tokens_details: { cached_tokens: n.cached_input_tokens },
    output_tokens: n.output_tokens,
    output_tokens_details: { reasoning_tokens: count(details.reasoning_tokens) },
    total_tokens: n.input_tokens + n.output_tokens,
  };
}

/** Whether an OpenAI-shape streaming request asked for the final usage chunk. */
export function streamUsageRequested(body: { stream_options?: unknown }): boolean {
  return isObject(body.stream_options) && body.stream_options.include_usage === true;
}

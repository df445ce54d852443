/**
 * POST /v1/embeddings: forwarded to an openai-kind provider (Anthropic serves no embeddings;
 * the catalogue refuses an embedding model pinned to one), every field as sent and the model
 * renamed. Billed on the upstream's usage.prompt_tokens; without it, on the tokens counted for
 * the reservation. Embeddings do not stream.
 */
import { invalidField } from "../../core/errors.ts";
import type { Dialect } from "./dialect.ts";
import { estimateEmbedding } from "./pricing.ts";
import { normalizeUsage } from "./translate/usage.ts";

export const embeddingsDialect: Dialect = {
  api: "embeddings",
  modelType: "embedding",
  check(body) {
    if (body.input === undefined || body.input === null) throw invalidField("input", "is required: a string, an array of strings, or token ids");
    if (body.stream !== undefined && body.stream !== false) throw invalidField("stream", "embeddings do not stream");
  },
  estimate(model, body) {
    const e = estimateEmbedding(model, body);
    return { amount: e.amount, promptTokens: e.inputTokens, outputTokens: 0 };
  },
  serves: (provider) => provider.adapter.supports("embeddings"),
  upstream: (_provider, call) => ({ endpoint: "embeddings", body: { ...call.body, model: call.model.upstream } }),
  reply: (_provider, json, text) => ({ body: text, usage: normalizeUsage(json.usage), produced: () => "" }),
  stream() {
    throw new Error("embeddings do not stream (check() refuses stream)");
  },
};

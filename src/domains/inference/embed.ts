/**
 * Metered embeddings for other areas' services (memory's documents and searches): the same call
 * as POST /v1/embeddings — the same pipeline (model, eligibility, reserve, fallback, settle on the
 * upstream's usage, receipt) through completeCall — with the vectors handed back instead of a
 * Response, and the receipt headers for the caller's own response.
 */
import { ApiError } from "../../core/errors.ts";
import type { MicroUsd } from "../../core/money.ts";
import type { Settlement } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { receiptHeaders } from "../receipts/index.ts";
import { embeddingsDialect } from "./embeddings.ts";
import { checkModel } from "./model-check.ts";
import { completeCall } from "./pipeline.ts";
import { malformedResponse } from "./providers/errors.ts";
import type { Json } from "./translate/types.ts";

export interface MeteredEmbeddingRequest {
  /** A model id of type "embedding" from the catalogue. */
  model: string;
  /** One vector comes back per string, in order. */
  input: string[];
  /** Sent as OpenAI's `dimensions` (shortened embeddings) when given. */
  dimensions?: number;
  signal?: AbortSignal;
  /** Checks the vectors before anything is charged; a throw releases the hold and nothing is billed. */
  accept?: (vectors: Float32Array[]) => void;
  /** The run the receipt is chained into (svc_run_id). */
  runId?: string | null;
}

export interface MeteredEmbeddings {
  vectors: Float32Array[];
  /** Input tokens billed (the upstream's usage, or the count reserved when it reported none). */
  input_tokens: number;
  cost_micro_usd: MicroUsd;
  receipt_id: string | null;
  /** x-svc-cost, x-svc-receipt, … for the caller's response (receipts/headers.ts). */
  headers: Record<string, string>;
  /** The settle behind it (its receipt), for callers that answer in another form (an MCP tool's _meta). */
  settlement: Settlement;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The vectors of an OpenAI embeddings reply, by `index`; floats or base64 float32. */
function vectorsOf(json: Json, count: number, provider: string): Float32Array[] {
  const data = Array.isArray(json.data) ? json.data : null;
  if (!data || data.length !== count) throw malformedResponse(provider, `${data ? data.length : "no"} embeddings for ${count} inputs`);
  const out: (Float32Array | undefined)[] = new Array(count);
  data.forEach((item, i) => {
    if (!isObject(item)) throw malformedResponse(provider, "an embedding that is not an object");
    const index = typeof item.index === "number" && Number.isInteger(item.index) ? item.index : i;
    const e = item.embedding;
    let vector: Float32Array;
    if (Array.isArray(e) && e.length && e.every((x) => typeof x === "number" && Number.isFinite(x))) vector = Float32Array.from(e as number[]);
    else if (typeof e === "string" && e.length) {
      const bytes = Buffer.from(e, "base64");
      if (bytes.length % 4 !== 0) throw malformedResponse(provider, "a base64 embedding that is not float32");
      vector = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    } else throw malformedResponse(provider, "an embedding that is neither numbers nor base64");
    if (index < 0 || index >= count || out[index]) throw malformedResponse(provider, "embeddings with missing or repeated indexes");
    out[index] = vector;
  });
  return out as Float32Array[];
}

/** Embeds `input` for the key's account, billed as embedding usage with a signed receipt. */
export async function embedMetered(ctx: Context, principal: ApiKeyPrincipal, request: MeteredEmbeddingRequest): Promise<MeteredEmbeddings> {
  const body: Json = { model: request.model, input: request.input, encoding_format: "float" };
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  if (request.runId) body.svc_run_id = request.runId;
  const { value, settlement, reservation, usage } = await completeCall(
    ctx,
    embeddingsDialect,
    { principal, body, signal: request.signal ?? new AbortController().signal, headers: {} },
    (json, provider) => {
      const vectors = vectorsOf(json, request.input.length, provider);
      request.accept?.(vectors);
      return vectors;
    },
  );
  return {
    vectors: value,
    input_tokens: usage.input_tokens,
    cost_micro_usd: settlement.cost,
    receipt_id: settlement.receipt?.id ?? null,
    headers: receiptHeaders(settlement, reservation),
    settlement,
  };
}

/**
 * Refuses a model id that is not an embedding model of the catalogue, as POST /v1/embeddings
 * would (404 model_not_found, 400 for a chat model), naming `param`.
 */
export const checkEmbeddingModel = (ctx: Context, model: string, param = "model"): void => checkModel(ctx, embeddingsDialect, model, param);

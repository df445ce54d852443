/**
 * A gateway for the memory tests: a harness (app.handle) whose catalogue has one embedding model
 * served by a local OpenAI-compatible POST /v1/embeddings on 127.0.0.1, and a chat model to be
 * refused as an embedding model. The stand-in's vectors depend on the text (the engine's hashed
 * bag of words), so retrieval can be tested for real; its dimension can be changed mid-test, as
 * if the operator had pointed the model at another upstream.
 */
import { type Hex, recoverMessageAddress } from "viem";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { Config } from "../../../src/config.ts";
import { parseInferenceSection } from "../../../src/domains/inference/config.ts";
import { HashedEmbedder } from "../../../src/domains/memory/engine/hashed-embedding.ts";
import { onCleanup } from "../../support/cleanup.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

export const USD = 1_000_000;
/** $1 per million tokens: an embedding call costs exactly its token count in micro-USD. */
export const EMBED_PRICE = 1_000_000;
export const EMBED_MODEL = "hashed-embed";
const UPSTREAM_KEY = "sk-embed-upstream-0123456789";
process.env.SVC_TEST_EMBED_KEY = UPSTREAM_KEY;

export interface EmbeddingStub {
  baseUrl: string;
  /** The dimension of the vectors it answers with (change it to simulate a changed upstream). */
  dimension: number;
  /** Each call's inputs and the prompt_tokens it reported. */
  calls: { input: string[]; tokens: number; model: string }[];
  stop(): void;
}

export function startEmbeddingStub(dimension = 64): EmbeddingStub {
  const embedders = new Map<number, HashedEmbedder>();
  const stub: EmbeddingStub = {
    baseUrl: "",
    dimension,
    calls: [],
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/embeddings") return Response.json({ error: { message: "no such route", type: "not_found" } }, { status: 404 });
      if (req.headers.get("authorization") !== `Bearer ${UPSTREAM_KEY}`) return Response.json({ error: { message: "bad key", type: "authentication_error" } }, { status: 401 });
      const body = (await req.json()) as { model: string; input: string | string[]; encoding_format?: string };
      const input = typeof body.input === "string" ? [body.input] : body.input;
      let embedder = embedders.get(stub.dimension);
      if (!embedder) embedders.set(stub.dimension, (embedder = new HashedEmbedder(stub.dimension)));
      const tokens = input.reduce((n, text) => n + countTokens(text), 0);
      stub.calls.push({ input, tokens, model: body.model });
      const data = input.map((text, index) => ({ object: "embedding", index, embedding: Array.from(embedder.embed(text)) }));
      // Answered in reverse order: the gateway must place vectors by their index.
      return Response.json({ object: "list", data: data.reverse(), model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
    },
  });
  stub.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  onCleanup(() => stub.stop());
  return stub;
}

export interface MemoryGateway {
  h: Harness;
  stub: EmbeddingStub;
  accountId: string;
  key: string;
  auth: Record<string, string>;
  /** h.json with the test key. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  balance(): { balance_micro_usd: number; held_micro_usd: number; spendable_micro_usd: number };
}

export function memoryGateway(options: { credit?: number; config?: (c: Config) => void; dimension?: number; dir?: string } = {}): MemoryGateway {
  const stub = startEmbeddingStub(options.dimension);
  const h = makeHarness({
    dir: options.dir,
    config: (c) => {
      Object.assign(
        c,
        parseInferenceSection({
          providers: [{ name: "emb", kind: "openai", base_url: stub.baseUrl, api_key_env: "SVC_TEST_EMBED_KEY", timeout_secs: 10 }],
          models: [
            { id: EMBED_MODEL, provider: "emb", upstream: "hashed", type: "embedding", input_micro_usd_per_mtok: EMBED_PRICE },
            { id: "chat-model", provider: "emb", upstream: "chat", input_micro_usd_per_mtok: 1, output_micro_usd_per_mtok: 1, max_output: 10 },
          ],
        }),
      );
      c.memory.embedding_model = EMBED_MODEL;
      options.config?.(c);
    },
  });
  onCleanup(() => h.close());
  const { account } = accountWithSession(h.ctx);
  if ((options.credit ?? 10 * USD) > 0) h.ctx.ledger.credit(account.id, options.credit ?? 10 * USD, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id).token;
  const auth = bearer(key);
  return {
    h,
    stub,
    accountId: account.id,
    key,
    auth,
    call: (method, path, body) => h.json(method, path, { headers: auth, ...(body === undefined ? {} : { body }) }),
    balance: () => h.ctx.ledger.balance(account.id),
  };
}

/** Recovers the receipt's signer with viem, checks it is the deployment's published signer, returns the payload. */
export async function verifiedReceipt(g: MemoryGateway, headers: Headers): Promise<any> {
  const receipt = headers.get("x-svc-receipt");
  const signature = headers.get("x-svc-receipt-signature");
  if (!receipt || !signature) throw new Error("no receipt headers");
  const recovered = await recoverMessageAddress({ message: receipt, signature: signature as Hex });
  const pub = await g.h.json("GET", "/v1/receipts/pubkey");
  if (recovered.toLowerCase() !== String(pub.body.address).toLowerCase()) throw new Error(`receipt signed by ${recovered}, not ${pub.body.address}`);
  return JSON.parse(Buffer.from(receipt, "base64url").toString("utf8"));
}

export const DOCS = {
  rust: "The borrow checker in Rust enforces ownership rules: each value has one owner, and references must not outlive the value they borrow.",
  bread: "Sourdough bread needs a starter of flour and water, a long fermentation, and a very hot oven with steam for a crisp crust.",
  orbit: "A satellite in geostationary orbit circles the Earth once per sidereal day, staying above one point on the equator.",
  tides: "Ocean tides are caused mainly by the Moon's gravity pulling on the water, with the Sun adding spring and neap cycles.",
};

export const seedDocuments = Object.entries(DOCS).map(([id, text]) => ({ id, text, metadata: { topic: id, lang: id === "bread" ? "fr" : "en" } }));

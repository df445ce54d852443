/**
 * Memory engine bench: ingest throughput and search latency/recall over one collection.
 *
 *   bun bench/memory.ts                          # 10k and 100k chunks, dimension 384
 *   bun bench/memory.ts --sizes 10000,100000,1000000 --queries 200
 *   bun bench/memory.ts --candidates 200,800     # also vector search re-ranking 200 and 800 candidates
 *   bun bench/memory.ts --mmap                   # with PRAGMA mmap_size = 1 GiB (openMemoryIndex's mmapBytes)
 *   bun bench/memory.ts --json > out.json        # figures as JSON on stdout; progress on stderr
 *   bun bench/memory.ts --http [--sizes 10000]   # through the compiled binary over HTTP (below)
 *
 * For each size it builds a fresh database in a temp dir (the gateway's pragmas, sqlite-vec
 * loaded, the migrations), ingests synthetic documents through upsertDocument with the
 * local stand-in embedder (HashedEmbedder: no model, no network), then runs queries:
 *   - vector: p50/p99 latency and recall@10 against an exact scan of every embedding
 *     (exactVectorSearch, the brute-force float answer);
 *   - vector with a metadata filter matching ~50% and ~2% of the chunks;
 *   - keyword (FTS5) and hybrid (both + RRF) latency.
 * Ingest is split into the time spent in the embedder, in the chunker, and the rest (SQLite
 * writes), to show which one bounds it. No thresholds: it prints figures, never passes or fails.
 *
 * The corpus: documents of ~4 chunks drawn from 500 topics (each topic a set of characteristic
 * words) over a Zipf-distributed background vocabulary; a query is 8 words of one chunk, mostly
 * topic words. The neighbourhood profile (median cosine of the exact 1st/10th/100th neighbour)
 * is printed, so the recall figures can be compared with real embeddings (docs/memory.md:
 * all-MiniLM-L6-v2 over real passages measured 0.58/0.47/0.36 for short queries).
 *
 * --http measures the whole product instead: dist/svc serve, set up with the CLI (account,
 * credit, a memory key, an embedding model on a local OpenAI-compatible stub in this process
 * serving the same stand-in embedder), then POST …/documents in batches of 25 documents (one
 * metered embedding call, one receipt, one transaction each) and POST …/search at concurrency 1.
 * It prints documents/s and chunks/s ingested, the share of that time spent in the stub's
 * embedder, search p50/p99 per mode, and the total billed, checked against the usage reported.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writeConfigFile } from "../src/config.ts";
import { closeDb, openDb } from "../src/core/db.ts";
import { migrations } from "../migrations/index.ts";
import { applyMigrations } from "../src/core/migrate.ts";
import { chunkText } from "../src/domains/memory/engine/chunker.ts";
import { HashedEmbedder } from "../src/domains/memory/engine/hashed-embedding.ts";
import { createCollection, deleteCollection, openMemoryIndex, search, upsertDocument, type SearchQuery } from "../src/domains/memory/engine/index.ts";
import { defaultCandidates, exactVectorSearch, normalised } from "../src/domains/memory/engine/vector-index.ts";
import { BIN, ensureBinary, run, runWithServer, SvcServer, svcEnv } from "./support.ts";

interface Args {
  sizes: number[];
  /** Extra candidate counts to measure vector search with, besides the default. */
  candidates: number[];
  queries: number;
  dimension: number;
  json: boolean;
  /** PRAGMA mmap_size = 1 GiB on the bench connection (openMemoryIndex's mmapBytes). */
  mmap: boolean;
  /** Through dist/svc over HTTP instead of the engine in process. */
  http: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { sizes: [], candidates: [], queries: 200, dimension: 384, json: false, mmap: false, http: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--sizes") args.sizes = argv[++i]!.split(",").map(Number);
    else if (a === "--candidates") args.candidates = argv[++i]!.split(",").map(Number);
    else if (a === "--queries") args.queries = Number(argv[++i]);
    else if (a === "--dim") args.dimension = Number(argv[++i]);
    else if (a === "--json") args.json = true;
    else if (a === "--mmap") args.mmap = true;
    else if (a === "--http") args.http = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.sizes.length) args.sizes = args.http ? [10_000] : [10_000, 100_000];
  if (args.sizes.some((n) => !Number.isInteger(n) || n < 1000 || n > 5_000_000)) throw new Error("--sizes: integers from 1000 to 5000000");
  return args;
}

const log = (msg: string) => process.stderr.write(msg + "\n");

/** Deterministic PRNG (mulberry32), so every run ingests the same corpus. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Corpus {
  private readonly rnd = prng(7);
  private readonly background: string[];
  private readonly cumulative: Float64Array;
  private readonly topics: string[][];

  constructor() {
    const word = (i: number, tag: string) => tag + i.toString(36);
    this.background = Array.from({ length: 30_000 }, (_, i) => word(i, "b"));
    this.cumulative = new Float64Array(this.background.length);
    let sum = 0;
    this.background.forEach((_, i) => (this.cumulative[i] = sum += 1 / (i + 10)));
    this.topics = Array.from({ length: 500 }, (_, t) => Array.from({ length: 40 }, (_, i) => word(t * 40 + i, "t")));
  }

  private zipf(): string {
    const x = this.rnd() * this.cumulative[this.cumulative.length - 1]!;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.background[lo]!;
  }

  /** ~4 chunks of ~100 words: half topic words (a few topics per document), half background. */
  document(): { text: string; topic: number } {
    const topic = Math.floor(this.rnd() * this.topics.length);
    const words: string[] = [];
    for (let i = 0; i < 400; i++) {
      const t = this.rnd() < 0.8 ? topic : Math.floor(this.rnd() * this.topics.length);
      words.push(this.rnd() < 0.5 ? this.topics[t]![Math.floor(this.rnd() * 40)]! : this.zipf());
    }
    return { text: words.join(" "), topic };
  }

  /** 8 words of a chunk's text, topic words preferred. */
  query(chunk: string): string {
    const words = chunk.split(" ");
    const topical = words.filter((w) => w.startsWith("t"));
    return Array.from({ length: 8 }, (_, i) => {
      const pool = i < 6 && topical.length ? topical : words;
      return pool[Math.floor(this.rnd() * pool.length)]!;
    }).join(" ");
  }
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const summary = (times: number[]) => {
  const s = [...times].sort((a, b) => a - b);
  return { p50_ms: +percentile(s, 50).toFixed(2), p99_ms: +percentile(s, 99).toFixed(2) };
};

async function runSize(size: number, args: Args) {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-memory-"));
  try {
    const db = openDb(join(dir, "svc.db"));
    openMemoryIndex(db, args.mmap ? { mmapBytes: 1 << 30 } : {});
    applyMigrations(db, migrations);
    const collection = createCollection(db, { id: "mcol_bench", accountId: "acct_bench", name: "bench", model: "hashed", dimension: args.dimension, chunkSize: 128, chunkOverlap: 16 });
    const embedder = new HashedEmbedder(args.dimension);
    const corpus = new Corpus();

    let chunks = 0;
    let documents = 0;
    let embedMs = 0;
    let chunkMs = 0;
    const samples: string[] = [];
    const started = performance.now();
    const embed = (texts: string[]) => {
      const t = performance.now();
      const out = embedder.embedMany(texts);
      embedMs += performance.now() - t;
      return out;
    };
    // Bounded: each document adds at least one chunk.
    while (chunks < size) {
      const { text, topic } = corpus.document();
      const t = performance.now();
      chunkText(text, { chunkSize: collection.chunkSize, overlap: collection.chunkOverlap }); // timed alone: the chunker's share
      chunkMs += performance.now() - t;
      const r = await upsertDocument(db, collection, { docId: `doc${documents}`, text, metadata: { lang: documents % 2 ? "en" : "fr", group: `g${documents % 50}`, topic } }, embed);
      chunks += r.chunks;
      documents++;
      if (samples.length < args.queries && documents % Math.max(1, Math.floor(size / 4 / args.queries)) === 0) samples.push(text.split(" ").slice(0, 100).join(" "));
      if (documents % 5000 === 0) log(`  ${size}: ${chunks} chunks…`);
    }
    // upsertDocument chunked each text again; count that time once, not twice.
    const totalMs = performance.now() - started - chunkMs;
    const storeMs = totalMs - embedMs - chunkMs;
    const ingest = {
      documents,
      chunks,
      seconds: +(totalMs / 1000).toFixed(1),
      docs_per_s: Math.round(documents / (totalMs / 1000)),
      chunks_per_s: Math.round(chunks / (totalMs / 1000)),
      share: { embedder: +(embedMs / totalMs).toFixed(2), chunker: +(chunkMs / totalMs).toFixed(2), sqlite_and_rest: +(storeMs / totalMs).toFixed(2) },
      sqlite_chunks_per_s: Math.round(chunks / (storeMs / 1000)),
    };
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    log(`  ${size}: ingested in ${ingest.seconds}s; ${args.queries} queries…`);

    const queries = samples.map((s) => corpus.query(s));
    const vectors = queries.map((q) => embedder.embed(q));
    // Warm-up: page cache and prepared statements.
    for (const v of vectors.slice(0, 5)) search(db, collection, { mode: "vector", queryVector: v, topK: 10 });

    // Exact answers once per query: the ground truth for every candidate setting.
    const truths = vectors.map((v) => exactVectorSearch(db, collection.key, normalised(v)!, 100));
    const chunkIdOf = db.query<{ id: number }, [string, number]>(
      "SELECT c.id FROM memory_chunks c JOIN memory_documents d ON d.key = c.document_key WHERE d.doc_id = ? AND c.ordinal = ?",
    );
    const vectorRun = (candidates?: number) => {
      const times: number[] = [];
      let found = 0;
      vectors.forEach((v, i) => {
        const t = performance.now();
        const hits = search(db, collection, { mode: "vector", queryVector: v, topK: 10, ...(candidates ? { candidates } : {}) });
        times.push(performance.now() - t);
        const truth = new Set(truths[i]!.slice(0, 10).map((h) => h.chunkId));
        for (const h of hits) if (truth.has(chunkIdOf.get(h.document_id, h.chunk_index)!.id)) found++;
      });
      return { ...summary(times), recall_at_10: +(found / (vectors.length * 10)).toFixed(3), candidates: candidates ?? defaultCandidates(chunks, 10) };
    };
    const vector = vectorRun();
    const sweep = args.candidates.map((c) => vectorRun(c));
    const profile = truths.map((t) => [t[0]!.score, t[9]!.score, t[99]!.score]);
    const median = (i: number) => +[...profile.map((p) => p[i]!)].sort((a, b) => a - b)[profile.length >> 1]!.toFixed(3);

    const timed = (make: (i: number) => SearchQuery) =>
      summary(
        queries.map((_, i) => {
          const t = performance.now();
          search(db, collection, make(i));
          return performance.now() - t;
        }),
      );
    const exactTimes = vectors.slice(0, 20).map((v) => {
      const t = performance.now();
      exactVectorSearch(db, collection.key, normalised(v)!, 10);
      return performance.now() - t;
    });
    const result = {
      chunks,
      ingest,
      vector,
      vector_candidates: sweep,
      vector_filter_50pct: timed((i) => ({ mode: "vector", queryVector: vectors[i]!, topK: 10, filter: { lang: "en" } })),
      vector_filter_2pct: timed((i) => ({ mode: "vector", queryVector: vectors[i]!, topK: 10, filter: { group: "g7" } })),
      keyword: timed((i) => ({ mode: "keyword", queryText: queries[i]!, topK: 10 })),
      hybrid: timed((i) => ({ mode: "hybrid", queryText: queries[i]!, queryVector: vectors[i]!, topK: 10 })),
      exact_scan: summary(exactTimes),
      neighbourhood_cosine_1_10_100: [median(0), median(1), median(2)],
      delete_collection_s: 0,
    };
    // Last: deleting the whole collection (every chunk out of both indexes, one transaction).
    const t = performance.now();
    deleteCollection(db, collection);
    result.delete_collection_s = +((performance.now() - t) / 1000).toFixed(2);
    closeDb(db);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


// ---------------------------------------------------------------------------------------------
// --http: the product end to end (dist/svc serve, metering, receipts), engine figures aside

async function svcCli(dataDir: string, cliArgs: string[]): Promise<string> {
  const r = await run([BIN, ...cliArgs, "--data-dir", dataDir], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  if (r.code !== 0) throw new Error(`svc ${cliArgs.join(" ")} failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

async function runHttp(size: number, args: Args) {
  await ensureBinary();
  const embedder = new HashedEmbedder(args.dimension);
  let embedMs = 0;
  let reportedTokens = 0;
  const stub = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { input: string[] | string; model: string };
      const input = typeof body.input === "string" ? [body.input] : body.input;
      const t = performance.now();
      const data = input.map((text, index) => ({ object: "embedding", index, embedding: Array.from(embedder.embed(text)) }));
      embedMs += performance.now() - t;
      // A token per four characters, as a real upstream would report some count.
      const tokens = input.reduce((n, text) => n + Math.ceil(text.length / 4), 0);
      reportedTokens += tokens;
      return Response.json({ object: "list", data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
    },
  });
  const server = new SvcServer("svc-bench-memory-http-", 10_000);
  const dir = server.dataDir;
  await run([BIN, "setup", "--yes", "--data-dir", dir, "--replica", "off"], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  const account = JSON.parse(await svcCli(dir, ["accounts", "create", "--wallet", "0x00000000000000000000000000000000000be4c5", "--json"])).id as string;
  await svcCli(dir, ["admin", "credit", "grant", "--account", account, "--micro-usd", String(1_000_000 * 1_000_000), "--reason", "bench"]);
  const key = JSON.parse(await svcCli(dir, ["keys", "mint", "--account", account, "--scopes", "memory", "--json"])).key as string;
  await svcCli(dir, ["providers", "add", "embedder", "--kind", "openai", "--base-url", `http://127.0.0.1:${stub.port}/v1`, "--timeout-secs", "60"]);
  await svcCli(dir, ["models", "add", "bench-embed", "--type", "embedding", "--provider", "embedder", "--upstream", "hashed", "--input-micro-usd-per-mtok", "20000"]);
  writeConfigFile(join(dir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 }, memory: { embedding_model: "bench-embed", ...(args.mmap ? { mmap_bytes: 1 << 30 } : {}) } });

  const outcome = await runWithServer(server, ["--replica", "off"], () => {}, async () => {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      const json = (await res.json()) as any;
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const collection = await post("/v1/memory/collections", { name: "bench", chunk_size: 128, chunk_overlap: 16 });
    const corpus = new Corpus();
    const samples: string[] = [];
    let chunks = 0;
    let documents = 0;
    let billed = 0;
    const started = performance.now();
    while (chunks < size) {
      const batch = Array.from({ length: 25 }, () => {
        const { text, topic } = corpus.document();
        return { id: `doc${documents++}`, text, metadata: { topic } };
      });
      if (samples.length < args.queries) samples.push(batch[0]!.text.split(" ").slice(0, 100).join(" "));
      const r = await post(`/v1/memory/collections/${collection.id}/documents`, { documents: batch });
      for (const d of r.documents) chunks += d.chunks;
      billed += r.usage.cost_micro_usd;
      if (documents % 2500 === 0) log(`  http ${size}: ${chunks} chunks…`);
    }
    const ingestMs = performance.now() - started;
    const queries = samples.map((q) => corpus.query(q));
    const timedMode = async (mode: string) => {
      const times: number[] = [];
      for (const query of queries) {
        const t = performance.now();
        const r = await post(`/v1/memory/collections/${collection.id}/search`, { query, mode, top_k: 10 });
        times.push(performance.now() - t);
        billed += r.usage.cost_micro_usd;
      }
      return summary(times);
    };
    await timedMode("keyword"); // warm-up
    const result = {
      chunks,
      ingest: {
        documents,
        seconds: +(ingestMs / 1000).toFixed(1),
        docs_per_s: Math.round(documents / (ingestMs / 1000)),
        chunks_per_s: Math.round(chunks / (ingestMs / 1000)),
        embedder_share: +(embedMs / ingestMs).toFixed(2),
      },
      search: { vector: await timedMode("vector"), keyword: await timedMode("keyword"), hybrid: await timedMode("hybrid") },
      billed_micro_usd: billed,
      reported_tokens: reportedTokens,
    };
    return result;
  });
  await server.stop();
  stub.stop(true);
  if (!outcome.ok) throw new Error("the HTTP run failed (see above)");
  return outcome.value;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${process.platform}-${process.arch}, bun ${Bun.version}`;
  if (args.http) {
    log(`memory bench over HTTP: ${machine}; dimension ${args.dimension}; sizes ${args.sizes.join(", ")}${args.mmap ? "; mmap 1 GiB" : ""}`);
    const results = [];
    for (const size of args.sizes) results.push(await runHttp(size, args));
    if (args.json) return void console.log(JSON.stringify({ machine, dimension: args.dimension, http: true, results }, null, 2));
    console.log(`machine: ${machine}; dimension ${args.dimension}; through dist/svc over HTTP, batches of 25 documents`);
    for (const r of results) {
      console.log(`${r.chunks} chunks: ingest ${r.ingest.docs_per_s} docs/s, ${r.ingest.chunks_per_s} chunks/s (embedder ${Math.round(r.ingest.embedder_share * 100)}% of the time)`);
      for (const [mode, t] of Object.entries(r.search)) console.log(`  search ${mode.padEnd(7)} p50 ${t.p50_ms} ms, p99 ${t.p99_ms} ms (HTTP round trip, metered)`);
      // At $0.02 per million tokens: cost = ceil(tokens × 20000 / 10^6) per call, so at least the exact share.
      console.log(`  billed ${r.billed_micro_usd} micro-USD for ${r.reported_tokens} tokens reported by the upstream`);
    }
    return;
  }
  log(`memory bench: ${machine}; dimension ${args.dimension}; sizes ${args.sizes.join(", ")}${args.mmap ? "; mmap 1 GiB" : ""}`);
  const loadStart = loadavg().map((l) => l.toFixed(2)).join(" ");
  const results = [];
  for (const size of args.sizes) results.push(await runSize(size, args));
  if (args.json) {
    console.log(JSON.stringify({ machine, dimension: args.dimension, mmap: args.mmap, load_average_at_start: loadStart, results }, null, 2));
    return;
  }
  console.log(`machine: ${machine}; dimension ${args.dimension}; mmap ${args.mmap ? "1 GiB" : "off"}; load average at start ${loadStart}`);
  console.log("chunks    ingest docs/s  chunks/s  (embedder/chunker/sqlite share)  vector p50/p99 ms  recall@10  filter50% p50  filter2% p50  keyword p50/p99  hybrid p50/p99  exact p50  nbhd cos 1/10/100");
  for (const r of results) {
    const s = r.ingest.share;
    console.log(
      [
        String(r.chunks).padEnd(9),
        String(r.ingest.docs_per_s).padStart(13),
        String(r.ingest.chunks_per_s).padStart(9),
        `  (${s.embedder}/${s.chunker}/${s.sqlite_and_rest}; sqlite alone ${r.ingest.sqlite_chunks_per_s}/s)`.padEnd(35),
        `${r.vector.p50_ms}/${r.vector.p99_ms}`.padStart(17),
        String(r.vector.recall_at_10).padStart(10),
        String(r.vector_filter_50pct.p50_ms).padStart(14),
        String(r.vector_filter_2pct.p50_ms).padStart(13),
        `${r.keyword.p50_ms}/${r.keyword.p99_ms}`.padStart(16),
        `${r.hybrid.p50_ms}/${r.hybrid.p99_ms}`.padStart(15),
        String(r.exact_scan.p50_ms).padStart(10),
        `  ${r.neighbourhood_cosine_1_10_100.join("/")}`,
      ].join(" "),
    );
    console.log(`  ${r.chunks} chunks: delete collection ${r.delete_collection_s} s`);
    for (const v of [r.vector, ...r.vector_candidates]) console.log(`  ${r.chunks} chunks, ${v.candidates} candidates: vector p50 ${v.p50_ms} ms, p99 ${v.p99_ms} ms, recall@10 ${v.recall_at_10}`);
  }
}

await main();

import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../../../src/core/errors.ts";
import { applyMigrations } from "../../../src/core/migrate.ts";
import { Sealer } from "../../../src/core/seal.ts";
import { openDb } from "../../../src/core/db.ts";
import {
  collectionStats,
  collectionsToPurge,
  createCollection,
  markCollectionDeleted,
  purgeCollection,
  deleteCollection,
  deleteDocument,
  getCollection,
  loadVectorExtension,
  search,
  upsertDocument,
  vectorExtensionVersion,
  type Collection,
  type SearchQuery,
} from "../../../src/domains/memory/engine/index.ts";
import { HashedEmbedder } from "../../../src/domains/memory/engine/hashed-embedding.ts";
import { exactVectorSearch, normalised } from "../../../src/domains/memory/engine/vector-index.ts";
import { migrations } from "../../../migrations/index.ts";
import { tempDir } from "../../support/harness.ts";

const DIM = 64;
const embedder = new HashedEmbedder(DIM);

/** A database file as the gateway opens it: pragmas, sqlite-vec loaded, then the migrations (0015 holds the memory tables). */
function openMemoryDb(): { db: Database; path: string } {
  const path = join(tempDir("svc-memory"), "svc.db");
  const db = openDb(path);
  loadVectorExtension(db);
  applyMigrations(db, migrations);
  return { db, path };
}

let seq = 0;
function collection(db: Database, overrides: Partial<Parameters<typeof createCollection>[1]> = {}): Collection {
  seq++;
  return createCollection(db, { id: `mcol_${seq}`, accountId: "acct_a", name: `c${seq}`, model: "hashed-64", dimension: DIM, chunkSize: 64, chunkOverlap: 8, ...overrides });
}

const DOCS = {
  rust: "The borrow checker in Rust enforces ownership rules: each value has one owner, and references must not outlive the value they borrow.",
  bread: "Sourdough bread needs a starter of flour and water, a long fermentation, and a very hot oven with steam for a crisp crust.",
  orbit: "A satellite in geostationary orbit circles the Earth once per sidereal day, staying above one point on the equator.",
  tides: "Ocean tides are caused mainly by the Moon's gravity pulling on the water, with the Sun adding spring and neap cycles.",
};

async function seed(db: Database, c: Collection): Promise<void> {
  for (const [docId, text] of Object.entries(DOCS)) {
    await upsertDocument(db, c, { docId, text, metadata: { topic: docId, lang: docId === "bread" ? "fr" : "en" } }, embedder.embedMany);
  }
}

const q = (mode: SearchQuery["mode"], text: string, extra: Partial<SearchQuery> = {}): SearchQuery => ({ mode, queryText: text, queryVector: embedder.embed(text), topK: 3, ...extra });

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("memory engine", () => {
  test("sqlite-vec loads into bun:sqlite and vec0 tables are created inside a migration transaction", () => {
    const { db } = openMemoryDb();
    expect(vectorExtensionVersion(db)).toMatch(/^v0\.1\./);
    applyMigrations(db, [
      ...migrations,
      { version: migrations.length + 1, name: "9999_vec", sql: "CREATE VIRTUAL TABLE memory_vectors_8 USING vec0 (collection_key integer partition key, shard integer partition key, code bit[16])" },
    ]);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'memory_vectors_8'").get()).toBeTruthy();
  });

  test("the right document ranks first in vector, keyword and hybrid mode", async () => {
    const { db } = openMemoryDb();
    const c = collection(db);
    await seed(db, c);
    for (const mode of ["vector", "keyword", "hybrid"] as const) {
      expect(search(db, c, q(mode, "Rust borrow checker ownership references"))[0]!.document_id).toBe("rust");
      expect(search(db, c, q(mode, "Moon gravity ocean tides"))[0]!.document_id).toBe("tides");
    }
    const [hit] = search(db, c, q("keyword", "sourdough"));
    expect(hit).toMatchObject({ document_id: "bread", chunk_id: "bread#0", chunk_index: 0, metadata: { topic: "bread", lang: "fr" } });
    expect(hit!.text).toBe(DOCS.bread);
    // A word in no document finds nothing by keyword.
    expect(search(db, c, q("keyword", "zeppelin"))).toEqual([]);
  });

  test("vector search returns what an exact scan returns", async () => {
    const { db } = openMemoryDb();
    const c = collection(db, { chunkSize: 16, chunkOverlap: 0 });
    const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon".split(" ");
    for (let d = 0; d < 40; d++) {
      const text = Array.from({ length: 30 }, (_, i) => words[(d * 7 + i * i) % words.length]).join(" ");
      await upsertDocument(db, c, { docId: `d${d}`, text }, embedder.embedMany);
    }
    const query = embedder.embed("gamma delta sigma tau kappa");
    const exact = exactVectorSearch(db, c.key, normalised(query)!, 5).map((h) => h.chunkId);
    const hits = search(db, c, { mode: "vector", queryVector: query, topK: 5 });
    const ids = db.query<{ id: number }, [string]>("SELECT id FROM memory_chunks WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(exact));
    expect(hits).toHaveLength(5);
    expect(ids).toHaveLength(5);
    // Small collection: every chunk is a candidate, so the re-ranked result is the exact one.
    expect(hits.map((h) => h.score)).toEqual(exactVectorSearch(db, c.key, normalised(query)!, 5).map((h) => h.score));
  });

  test("deleting a document removes it from every mode", async () => {
    const { db } = openMemoryDb();
    const c = collection(db);
    await seed(db, c);
    deleteDocument(db, c, "tides");
    for (const mode of ["vector", "keyword", "hybrid"] as const) {
      expect(search(db, c, q(mode, "Moon gravity ocean tides", { topK: 10 })).map((h) => h.document_id)).not.toContain("tides");
    }
    expect(refusal(() => deleteDocument(db, c, "tides")).status).toBe(404);
    expect(collectionStats(db, c).documents).toBe(3);
  });

  test("upserting a document id again replaces its chunks", async () => {
    const { db } = openMemoryDb();
    const c = collection(db, { chunkSize: 16, chunkOverlap: 4 });
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    const first = await upsertDocument(db, c, { docId: "doc", text: long }, embedder.embedMany);
    expect(first.chunks).toBeGreaterThan(2);
    await upsertDocument(db, c, { docId: "doc", text: "a short replacement about zebras", metadata: { v: 2 } }, embedder.embedMany);
    expect(db.query("SELECT count(*) AS n FROM memory_chunks").get()).toEqual({ n: 1 });
    expect(collectionStats(db, c)).toMatchObject({ documents: 1, chunks: 1 });
    expect(search(db, c, q("keyword", "word7"))).toEqual([]);
    expect(search(db, c, q("hybrid", "zebras"))[0]).toMatchObject({ document_id: "doc", metadata: { v: 2 } });
    // The vec0 and FTS5 rows went with the old chunks.
    expect(db.query(`SELECT count(*) AS n FROM memory_vectors_${DIM}`).get()).toEqual({ n: 1 });
  });

  test("collections are isolated, and another account sees none of them", async () => {
    const { db } = openMemoryDb();
    const a = collection(db);
    const b = collection(db, { accountId: "acct_b" });
    await seed(db, a);
    await upsertDocument(db, b, { docId: "other", text: "Sourdough starter notes from another tenant." }, embedder.embedMany);
    for (const mode of ["vector", "keyword", "hybrid"] as const) {
      expect(search(db, b, q(mode, "sourdough bread oven", { topK: 10 })).map((h) => h.document_id)).toEqual(["other"]);
      expect(search(db, a, q(mode, "sourdough starter notes another tenant", { topK: 10 })).map((h) => h.document_id)).not.toContain("other");
    }
    expect(getCollection(db, "acct_b", a.id)).toBeNull();
    expect(getCollection(db, "acct_a", a.id)?.key).toBe(a.key);
    deleteCollection(db, a);
    expect(getCollection(db, "acct_a", a.id)).toBeNull();
    expect(db.query("SELECT count(*) AS n FROM memory_chunks WHERE collection_key = ?").get(a.key)).toEqual({ n: 0 });
    expect(db.query(`SELECT count(*) AS n FROM memory_vectors_${DIM}`).get()).toEqual({ n: 1 });
    expect(search(db, b, q("keyword", "sourdough"))).toHaveLength(1);
  });

  test("a metadata filter narrows every mode", async () => {
    const { db } = openMemoryDb();
    const c = collection(db);
    await seed(db, c);
    for (const mode of ["vector", "keyword", "hybrid"] as const) {
      const hits = search(db, c, q(mode, "sourdough bread oven flour", { topK: 10, filter: { lang: "en" } }));
      expect(hits.map((h) => h.document_id)).not.toContain("bread");
      expect(hits.every((h) => h.metadata.lang === "en")).toBe(true);
    }
    expect(search(db, c, q("vector", "anything", { filter: { lang: "de" } }))).toEqual([]);
    // Equality is on the JSON value: the string "1" is not the number 1.
    await upsertDocument(db, c, { docId: "n", text: "numbered note", metadata: { n: 1 } }, embedder.embedMany);
    expect(search(db, c, q("keyword", "numbered", { filter: { n: 1 } }))).toHaveLength(1);
    expect(search(db, c, q("keyword", "numbered", { filter: { n: "1" } }))).toHaveLength(0);
    expect(refusal(() => search(db, c, q("vector", "x", { filter: { "bad key'": 1 } }))).extra.param).toBe("filter.bad key'");
    expect(refusal(() => search(db, c, q("vector", "x", { filter: { k: { nested: 1 } } as never }))).status).toBe(400);
  });

  test("a vector of the wrong dimension is refused with a typed error", async () => {
    const { db } = openMemoryDb();
    const c = collection(db);
    const wrong = refusal(() => search(db, c, { mode: "vector", queryVector: new Float32Array(DIM + 1).fill(0.1), topK: 3 }));
    expect(wrong).toMatchObject({ status: 400, type: "dimension_mismatch" });
    expect(wrong.extra).toMatchObject({ expected_dimension: DIM, dimension: DIM + 1 });
    const upsert = await upsertDocument(db, c, { docId: "d", text: "some text" }, (chunks) => chunks.map(() => new Float32Array(DIM - 1).fill(1))).catch((e: unknown) => e);
    expect(upsert).toMatchObject({ status: 400, type: "dimension_mismatch" });
    const zero = await upsertDocument(db, c, { docId: "d", text: "some text" }, (chunks) => chunks.map(() => new Float32Array(DIM))).catch((e: unknown) => e);
    expect(zero).toMatchObject({ status: 400, type: "invalid_request" });
    // Nothing was written by the refused upserts.
    expect(collectionStats(db, c).documents).toBe(0);
  });

  test("seal_text keeps chunk text out of the file and refuses keyword search", async () => {
    const marker = "zqxmarker" + crypto.randomUUID().replaceAll("-", "");
    const sealer = new Sealer([Sealer.generateKey()]);
    const { db, path } = openMemoryDb();
    const sealed = collection(db, { sealText: true });
    await upsertDocument(db, sealed, { docId: "secret", text: `The vault code word is ${marker} and nobody else knows it.` }, embedder.embedMany, { sealer });
    const hits = search(db, sealed, { mode: "vector", queryVector: embedder.embed(`vault code word ${marker}`), topK: 1 }, { sealer });
    expect(hits[0]!.text).toContain(marker);
    for (const mode of ["keyword", "hybrid"] as const) {
      expect(refusal(() => search(db, sealed, q(mode, marker), { sealer }))).toMatchObject({ status: 400, type: "keyword_search_unavailable" });
    }
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = () => [path, `${path}-wal`].map((p) => { try { return readFileSync(p).toString("latin1"); } catch { return ""; } }).join("");
    expect(bytes()).not.toContain(marker);

    // The same text in a collection that does not seal is in the file: the scan can see a marker.
    const clear = collection(db);
    await upsertDocument(db, clear, { docId: "open", text: `Plain ${marker}` }, embedder.embedMany);
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(bytes()).toContain(marker);
    db.close();
  });

  test("bad collection settings and queries are refused naming the field", () => {
    const { db } = openMemoryDb();
    expect(refusal(() => collection(db, { dimension: 0 })).extra.param).toBe("dimension");
    expect(refusal(() => collection(db, { chunkSize: 8 })).extra.param).toBe("chunk_size");
    expect(refusal(() => collection(db, { chunkSize: 64, chunkOverlap: 40 })).extra.param).toBe("chunk_overlap");
    const c = collection(db);
    expect(refusal(() => search(db, c, { mode: "vector", topK: 3 })).extra.param).toBe("query_vector");
    expect(refusal(() => search(db, c, { mode: "keyword", topK: 3 })).extra.param).toBe("query_text");
    expect(refusal(() => search(db, c, q("vector", "x", { topK: 0 }))).extra.param).toBe("top_k");
  });

  test("a collection created without a dimension takes its first vectors' and refuses another afterwards", async () => {
    const { db } = openMemoryDb();
    const c = collection(db, { dimension: null });
    expect(c.dimension).toBeNull();
    expect(search(db, c, q("vector", "anything"))).toEqual([]);
    await upsertDocument(db, c, { docId: "a", text: DOCS.rust }, embedder.embedMany);
    expect(getCollection(db, "acct_a", c.id)!.dimension).toBe(DIM);
    const other = new HashedEmbedder(DIM / 2);
    const wrong = await upsertDocument(db, c, { docId: "b", text: DOCS.bread }, other.embedMany).then(
      () => null,
      (err: ApiError) => err,
    );
    expect(wrong).toMatchObject({ type: "dimension_mismatch" });
    expect(collectionStats(db, c)).toMatchObject({ documents: 1, chunks: 1 });
  });

  test("a deleted collection is hidden at once and purged in batches", async () => {
    const { db } = openMemoryDb();
    const c = collection(db, { chunkSize: 16, chunkOverlap: 0 });
    for (let d = 0; d < 5; d++) await upsertDocument(db, c, { docId: `d${d}`, text: `${DOCS.orbit} ${DOCS.tides}` }, embedder.embedMany);
    const chunks = collectionStats(db, c).chunks;
    expect(chunks).toBeGreaterThanOrEqual(20);
    expect(markCollectionDeleted(db, c)).toBe(true);
    expect(markCollectionDeleted(db, c)).toBe(false);
    expect(getCollection(db, "acct_a", c.id)).toBeNull();
    expect(collectionsToPurge(db)).toEqual([c.key]);
    let rounds = 1;
    while (!purgeCollection(db, c.key, 7)) rounds++;
    expect(rounds).toBe(Math.floor(chunks / 7) + 1);
    expect(db.query("SELECT count(*) AS n FROM memory_chunks").get()).toEqual({ n: 0 });
    expect(db.query(`SELECT count(*) AS n FROM memory_vectors_${DIM}`).get()).toEqual({ n: 0 });
    expect(db.query("SELECT count(*) AS n FROM memory_collections").get()).toEqual({ n: 0 });
    expect(collectionsToPurge(db)).toEqual([]);
  });
});

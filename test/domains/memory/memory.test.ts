/**
 * /v1/memory/collections through HTTP, with a local OpenAI-compatible embeddings upstream whose
 * vectors depend on the text: collections, documents, vector/keyword/hybrid retrieval, billing as
 * embedding usage with receipts that verify with viem, dimension changes, caps, bad input,
 * tenancy, seal_text, and deletion down to the index rows.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { DOCS, EMBED_MODEL, type MemoryGateway, memoryGateway, seedDocuments, USD, verifiedReceipt } from "./memory-support.ts";

async function collection(g: MemoryGateway, body: Record<string, unknown> = {}): Promise<any> {
  const r = await g.call("POST", "/v1/memory/collections", { name: "notes", ...body });
  if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function seeded(g: MemoryGateway, body: Record<string, unknown> = {}): Promise<string> {
  const c = await collection(g, { chunk_size: 64, ...body });
  const r = await g.call("POST", `/v1/memory/collections/${c.id}/documents`, { documents: seedDocuments });
  if (r.status !== 200) throw new Error(`documents failed ${r.status} ${JSON.stringify(r.body)}`);
  return c.id;
}

const search = (g: MemoryGateway, id: string, body: Record<string, unknown>) => g.call("POST", `/v1/memory/collections/${id}/search`, body);

describe("collections", () => {
  test("create (model from memory.embedding_model), list as {collections}, delete", async () => {
    const g = memoryGateway();
    const made = await g.call("POST", "/v1/memory/collections", { name: "  agent notes ", metadata: { owner: "planner" } });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^mcol_/),
      name: "agent notes",
      embedding_model: EMBED_MODEL,
      dimension: null,
      chunk_size: 512,
      chunk_overlap: 64,
      seal_text: false,
      metadata: { owner: "planner" },
      documents: 0,
      chunks: 0,
      tokens: 0,
      created_at: "2026-11-21T12:00:00.000Z",
    });
    const small = await collection(g, { name: "small", embedding_model: EMBED_MODEL, chunk_size: 32 });
    expect(small).toMatchObject({ chunk_size: 32, chunk_overlap: 4 });
    const list = await g.call("GET", "/v1/memory/collections");
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(["collections"]);
    expect(list.body.collections.map((c: any) => c.id)).toEqual([made.body.id, small.id]);

    const gone = await g.call("DELETE", `/v1/memory/collections/${made.body.id}`);
    expect(gone).toMatchObject({ status: 200, body: { id: made.body.id, deleted: true } });
    expect((await g.call("DELETE", `/v1/memory/collections/${made.body.id}`)).status).toBe(404);
    expect((await g.call("GET", "/v1/memory/collections")).body.collections.map((c: any) => c.id)).toEqual([small.id]);
  });

  test("bad input names the field; unknown and chat models are refused", async () => {
    const g = memoryGateway();
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [{ name: "" }, 400, "name"],
      [{ name: "   " }, 400, "name"],
      [{ name: "x", embedding_model: "no-such-model" }, 404, "embedding_model", "model_not_found"],
      [{ name: "x", embedding_model: "chat-model" }, 400, "embedding_model"],
      [{ name: "x", chunk_size: 8 }, 400, "chunk_size"],
      [{ name: "x", chunk_size: "64" }, 400, "chunk_size"],
      [{ name: "x", chunk_size: 64, chunk_overlap: 40 }, 400, "chunk_overlap"],
      [{ name: "x", metadata: ["not", "an", "object"] }, 400, "metadata"],
      [{ name: "x", metadata: { big: "x".repeat(17_000) } }, 400, "metadata"],
      [{ name: "x", dimensions: 8 }, 400, "dimensions"],
    ];
    for (const [body, status, param, type] of cases) {
      const r = await g.call("POST", "/v1/memory/collections", body);
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), status]);
      expect(r.body.error.param).toBe(param);
      if (type) expect(r.body.error.type).toBe(type);
    }
    expect((await g.call("GET", "/v1/memory/collections")).body.collections).toEqual([]);
  });

  test("without memory.embedding_model a collection must name its model", async () => {
    const g = memoryGateway({ config: (c) => void (c.memory.embedding_model = "") });
    const r = await g.call("POST", "/v1/memory/collections", { name: "x" });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("embedding_model");
    expect((await g.call("POST", "/v1/memory/collections", { name: "x", embedding_model: EMBED_MODEL })).status).toBe(201);
  });

  test("100 collections per account: the 101st is 409 naming the cap; another account is unaffected", async () => {
    const g = memoryGateway();
    for (let i = 0; i < 100; i++) await collection(g, { name: `c${i}` });
    const over = await g.call("POST", "/v1/memory/collections", { name: "one too many" });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "collection_limit_reached", limit: 100 });
    const list = await g.call("GET", "/v1/memory/collections");
    expect(list.body.collections).toHaveLength(100);
    const { account } = accountWithSession(g.h.ctx);
    expect((await g.h.json("POST", "/v1/memory/collections", { headers: bearer(apiKeyFor(g.h.ctx, account.id).token), body: { name: "theirs" } })).status).toBe(201);
    await g.call("DELETE", `/v1/memory/collections/${list.body.collections[0].id}`);
    expect((await g.call("POST", "/v1/memory/collections", { name: "fits again" })).status).toBe(201);
  }, 60_000);

  test("a key without the memory scope is refused 403 naming it", async () => {
    const g = memoryGateway();
    const narrow = bearer(apiKeyFor(g.h.ctx, g.accountId, { scopes: ["state"] }).token);
    const r = await g.h.json("GET", "/v1/memory/collections", { headers: narrow });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "missing_scope", scope: "memory" });
  });
});

describe("documents and search", () => {
  test("the right document ranks first in vector, keyword and hybrid mode; a filter narrows; the text and metadata come back", async () => {
    const g = memoryGateway();
    const id = await seeded(g);
    for (const mode of ["vector", "keyword", "hybrid"]) {
      const rust = await search(g, id, { query: "Rust borrow checker ownership references", mode, top_k: 3 });
      expect(rust.status).toBe(200);
      expect(rust.body.mode).toBe(mode);
      expect(rust.body.results[0].document_id).toBe("rust");
      expect((await search(g, id, { query: "Moon gravity ocean tides", mode })).body.results[0].document_id).toBe("tides");
    }
    const [hit] = (await search(g, id, { query: "sourdough", mode: "keyword" })).body.results;
    expect(hit).toEqual({ document_id: "bread", chunk_id: "bread#0", chunk_index: 0, score: expect.any(Number), text: DOCS.bread, metadata: { topic: "bread", lang: "fr" } });
    // Default mode: hybrid.
    const byDefault = await search(g, id, { query: "satellite orbit equator" });
    expect(byDefault.body.mode).toBe("hybrid");
    expect(byDefault.body.results[0].document_id).toBe("orbit");
    const filtered = await search(g, id, { query: "Rust borrow checker", mode: "vector", filter: { lang: "fr" } });
    expect(filtered.body.results.map((r: any) => r.document_id)).toEqual(["bread"]);
    expect((await search(g, id, { query: "zeppelin", mode: "keyword" })).body.results).toEqual([]);
  });

  test("documents and searches bill exactly the embedding cost, with receipts that verify with viem; keyword search is free", async () => {
    const g = memoryGateway();
    const c = await collection(g, { chunk_size: 64 });
    const before = g.balance();
    const added = await g.call("POST", `/v1/memory/collections/${c.id}/documents`, { documents: seedDocuments });
    expect(added.status).toBe(200);
    // One embeddings call for the whole request: every chunk of every document, in order.
    expect(g.stub.calls).toHaveLength(1);
    const call = g.stub.calls[0]!;
    expect(call.model).toBe("hashed");
    expect(call.input).toEqual(Object.values(DOCS));
    expect(added.body).toEqual({
      collection_id: c.id,
      documents: seedDocuments.map((d) => ({ id: d.id, chunks: 1, tokens: expect.any(Number) })),
      usage: { embedding_tokens: call.tokens, cost_micro_usd: call.tokens },
    });
    const after = g.balance();
    expect(before.balance_micro_usd - after.balance_micro_usd).toBe(call.tokens);
    expect(after.held_micro_usd).toBe(0);
    expect(added.headers.get("x-svc-cost-micro-usd")).toBe(String(call.tokens));
    const receipt = await verifiedReceipt(g, added.headers);
    expect(receipt).toMatchObject({ account: g.accountId, kind: "inference", resource: EMBED_MODEL, cost_micro_usd: call.tokens, units: { api: "embeddings", input_tokens: call.tokens } });
    expect(JSON.stringify(receipt)).not.toContain("borrow checker");

    const found = await search(g, c.id, { query: "Moon tides", mode: "vector" });
    const queryCall = g.stub.calls[1]!;
    expect(queryCall.input).toEqual(["Moon tides"]);
    expect(found.body.usage).toEqual({ embedding_tokens: queryCall.tokens, cost_micro_usd: queryCall.tokens });
    expect(after.balance_micro_usd - g.balance().balance_micro_usd).toBe(queryCall.tokens);
    expect((await verifiedReceipt(g, found.headers)).cost_micro_usd).toBe(queryCall.tokens);

    const spent = g.balance().balance_micro_usd;
    const keyword = await search(g, c.id, { query: "Moon tides", mode: "keyword" });
    expect(keyword.body.usage).toEqual({ embedding_tokens: 0, cost_micro_usd: 0 });
    expect(keyword.headers.get("x-svc-receipt")).toBeNull();
    expect(g.stub.calls).toHaveLength(2);
    expect(g.balance().balance_micro_usd).toBe(spent);

    // Usage events: the two embedding calls, as inference usage on the embeddings API.
    const events = g.h.ctx.db.query<any, [string]>("SELECT kind, resource, cost_micro_usd, units FROM usage_events WHERE account_id = ? ORDER BY seq").all(g.accountId);
    expect(events.map((e) => [e.kind, e.resource, e.cost_micro_usd, JSON.parse(e.units).api])).toEqual([
      ["inference", EMBED_MODEL, call.tokens, "embeddings"],
      ["inference", EMBED_MODEL, queryCall.tokens, "embeddings"],
    ]);
  });

  test("an empty collection's search embeds and bills nothing; without credit, documents answer 402", async () => {
    const g = memoryGateway({ credit: 0 });
    const c = await collection(g);
    const r = await search(g, c.id, { query: "anything" });
    expect(r.body).toEqual({ collection_id: c.id, mode: "hybrid", results: [], usage: { embedding_tokens: 0, cost_micro_usd: 0 } });
    const broke = await g.call("POST", `/v1/memory/collections/${c.id}/documents`, { documents: [{ text: "some text" }] });
    expect(broke.status).toBe(402);
    expect(broke.body.error.type).toBe("insufficient_credit");
    expect(g.stub.calls).toHaveLength(0);
  });

  test("re-adding a document id replaces its chunks; deleting a document removes it from every mode", async () => {
    const g = memoryGateway();
    const id = await seeded(g);
    const replaced = await g.call("POST", `/v1/memory/collections/${id}/documents`, {
      documents: [{ id: "rust", text: "Zig has comptime and manual memory management with allocators passed explicitly." }],
    });
    expect(replaced.status).toBe(200);
    expect((await search(g, id, { query: "borrow checker ownership", mode: "keyword" })).body.results).toEqual([]);
    expect((await search(g, id, { query: "comptime allocators", mode: "keyword" })).body.results[0]).toMatchObject({ document_id: "rust" });
    const listed = (await g.call("GET", "/v1/memory/collections")).body.collections[0];
    expect(listed).toMatchObject({ documents: 4, chunks: 4, dimension: 64 });

    const gone = await g.call("DELETE", `/v1/memory/collections/${id}/documents/tides`);
    expect(gone).toMatchObject({ status: 200, body: { collection_id: id, document_id: "tides", deleted: true } });
    for (const mode of ["vector", "keyword", "hybrid"]) {
      const r = await search(g, id, { query: "Moon gravity ocean tides", mode, top_k: 10 });
      expect(r.body.results.map((x: any) => x.document_id)).not.toContain("tides");
    }
    expect((await g.call("DELETE", `/v1/memory/collections/${id}/documents/tides`)).status).toBe(404);
    expect((await g.call("GET", "/v1/memory/collections")).body.collections[0]).toMatchObject({ documents: 3, chunks: 3 });
  });

  test("long documents are chunked with overlap, and each chunk is found", async () => {
    const g = memoryGateway();
    const c = await collection(g, { chunk_size: 32, chunk_overlap: 4 });
    const sentences = Array.from({ length: 12 }, (_, i) => `Sentence ${i} talks about topic${i} and nothing else of note here.`);
    const r = await g.call("POST", `/v1/memory/collections/${c.id}/documents`, { documents: [{ id: "long", text: sentences.join(" ") }] });
    expect(r.body.documents[0].chunks).toBeGreaterThan(3);
    expect(g.stub.calls[0]!.input).toHaveLength(r.body.documents[0].chunks);
    const hit = (await search(g, c.id, { query: "topic9", mode: "keyword", top_k: 1 })).body.results[0];
    expect(hit.text).toContain("topic9");
    expect(hit.chunk_id).toBe(`long#${hit.chunk_index}`);
  });

  test("bad input: documents and search bodies name the field; nothing is embedded", async () => {
    const g = memoryGateway();
    const id = await seeded(g);
    const calls = g.stub.calls.length;
    const docCases: [unknown, string][] = [
      [{ documents: [] }, "documents"],
      [{ documents: Array.from({ length: 101 }, () => ({ text: "x" })) }, "documents"],
      [{ documents: [{ text: "   " }] }, "documents.0.text"],
      [{ documents: [{ text: 42 }] }, "documents.0.text"],
      [{ documents: [{ id: "has space", text: "x" }] }, "documents.0.id"],
      [{ documents: [{ id: "a", text: "x" }, { id: "a", text: "y" }] }, "documents[1].id"],
      [{ documents: [{ text: "x", colour: "red" }] }, "documents.0.colour"],
      [{ documents: [{ text: "x", metadata: { big: "y".repeat(17_000) } }] }, "documents[0].metadata"],
      [{ docs: [] }, "documents"],
    ];
    for (const [body, param] of docCases) {
      const r = await g.call("POST", `/v1/memory/collections/${id}/documents`, body);
      expect([param, r.status]).toEqual([param, 400]);
      expect(r.body.error.param).toBe(param);
    }
    const searchCases: [unknown, string][] = [
      [{ query: "" }, "query"],
      [{ query: "  " }, "query"],
      [{ query: "x", top_k: 0 }, "top_k"],
      [{ query: "x", top_k: 101 }, "top_k"],
      [{ query: "x", mode: "fuzzy" }, "mode"],
      [{ query: "x", filter: { lang: { $ne: "en" } } }, "filter.lang"],
      [{ query: "x", filter: { "bad key": 1 } }, "filter"],
    ];
    for (const [body, param] of searchCases) {
      const r = await search(g, id, body as Record<string, unknown>);
      expect([param, r.status]).toEqual([param, 400]);
      expect(r.body.error.param.startsWith(param)).toBe(true);
    }
    const raw = await g.h.json("POST", `/v1/memory/collections/${id}/search`, { headers: { ...g.auth, "content-type": "application/json" }, raw: "{not json" });
    expect(raw.body.error.type).toBe("invalid_json");
    expect(g.stub.calls.length).toBe(calls);
  });

  test("too many chunks for one request is refused before anything is embedded", async () => {
    const g = memoryGateway();
    const c = await collection(g, { chunk_size: 16, chunk_overlap: 0 });
    const text = Array.from({ length: 2100 }, (_, i) => `w${i} alpha beta gamma delta epsilon zeta eta theta iota kappa`).join(" ");
    const r = await g.call("POST", `/v1/memory/collections/${c.id}/documents`, { documents: [{ text }] });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("documents");
    expect(r.body.error.message).toContain("2048");
    expect(g.stub.calls).toHaveLength(0);
  });
});

describe("dimension", () => {
  test("the first embeddings fix the dimension; a model that changes size is refused 409 and nothing is billed", async () => {
    const g = memoryGateway({ dimension: 32 });
    const id = await seeded(g);
    expect((await g.call("GET", "/v1/memory/collections")).body.collections[0].dimension).toBe(32);
    g.stub.dimension = 48; // the operator pointed the model at another upstream
    const before = g.balance();
    const add = await g.call("POST", `/v1/memory/collections/${id}/documents`, { documents: [{ text: "more text" }] });
    expect(add.status).toBe(409);
    expect(add.body.error).toMatchObject({ type: "dimension_mismatch", expected_dimension: 32, dimension: 48 });
    const query = await search(g, id, { query: "Moon tides", mode: "vector" });
    expect(query.status).toBe(409);
    expect(query.body.error.type).toBe("dimension_mismatch");
    expect(g.balance()).toEqual(before);
    // Keyword search needs no embedding and still works; a new collection takes the new size.
    expect((await search(g, id, { query: "Moon tides", mode: "keyword" })).body.results[0].document_id).toBe("tides");
    const fresh = await seeded(g);
    expect((await g.call("GET", "/v1/memory/collections")).body.collections.find((c: any) => c.id === fresh).dimension).toBe(48);
    expect((await search(g, fresh, { query: "Moon tides", mode: "vector" })).body.results[0].document_id).toBe("tides");
  });
});

describe("tenancy and unknown ids", () => {
  test("unknown and other accounts' collections are 404 on every route, and never listed", async () => {
    const g = memoryGateway();
    const id = await seeded(g);
    const { account } = accountWithSession(g.h.ctx);
    g.h.ctx.ledger.credit(account.id, USD, { type: "deposit" });
    const theirs = bearer(apiKeyFor(g.h.ctx, account.id).token);
    const as = (headers: Record<string, string>, method: string, path: string, body?: unknown) => g.h.json(method, path, { headers, ...(body ? { body } : {}) });
    for (const target of [id, "mcol_doesnotexist"]) {
      const who = target === id ? theirs : g.auth;
      expect((await as(who, "POST", `/v1/memory/collections/${target}/documents`, { documents: [{ text: "x" }] })).status).toBe(404);
      expect((await as(who, "POST", `/v1/memory/collections/${target}/search`, { query: "rust" })).status).toBe(404);
      expect((await as(who, "DELETE", `/v1/memory/collections/${target}/documents/rust`)).status).toBe(404);
      expect((await as(who, "DELETE", `/v1/memory/collections/${target}`)).status).toBe(404);
    }
    expect((await as(theirs, "GET", "/v1/memory/collections")).body).toEqual({ collections: [] });
    // Their own collection's search never sees this account's chunks (isolated indexes).
    const mine = await as(theirs, "POST", "/v1/memory/collections", { name: "theirs" });
    await as(theirs, "POST", `/v1/memory/collections/${mine.body.id}/documents`, { documents: [{ text: "nothing about tides" }] });
    const r = await as(theirs, "POST", `/v1/memory/collections/${mine.body.id}/search`, { query: "Rust borrow checker Moon tides", top_k: 10 });
    expect(r.body.results.map((x: any) => x.text)).toEqual(["nothing about tides"]);
    expect((await search(g, id, { query: "rust" })).status).toBe(200);
  });
});

describe("deleting a collection", () => {
  test("hides it at once; the purge job removes its chunks, vectors and keyword rows", async () => {
    const g = memoryGateway();
    const id = await seeded(g);
    const keep = await seeded(g);
    const count = (sql: string) => g.h.ctx.db.query<{ n: number }, []>(sql).get()!.n;
    expect(count("SELECT count(*) AS n FROM memory_chunks")).toBe(8);
    expect((await g.call("DELETE", `/v1/memory/collections/${id}`)).status).toBe(200);
    expect((await search(g, id, { query: "rust" })).status).toBe(404);
    registerJobs(g.h.ctx);
    await g.h.ctx.scheduler.runDue();
    expect(count("SELECT count(*) AS n FROM memory_chunks")).toBe(4);
    expect(count("SELECT count(*) AS n FROM memory_vectors_64")).toBe(4);
    expect(count("SELECT count(*) AS n FROM memory_documents")).toBe(4);
    expect(count("SELECT count(*) AS n FROM memory_collections")).toBe(1);
    expect((await search(g, keep, { query: "Moon gravity ocean tides", mode: "keyword" })).body.results[0].document_id).toBe("tides");
  });
});

describe("seal_text", () => {
  test("chunk text is sealed at rest; vector search still answers with it; keyword and hybrid are refused unbilled", async () => {
    const marker = `memory-marker-${crypto.randomUUID()}`;
    const sealed = memoryGateway({ config: (c) => void (c.memory.seal_text = true) });
    const c = await collection(sealed);
    expect(c.seal_text).toBe(true);
    await sealed.call("POST", `/v1/memory/collections/${c.id}/documents`, { documents: [{ id: "m", text: `The secret phrase is ${marker} and nothing more.` }, ...seedDocuments] });
    const vector = await search(sealed, c.id, { query: `secret phrase ${marker}` });
    expect(vector.body.mode).toBe("vector");
    expect(vector.body.results[0]).toMatchObject({ document_id: "m", text: `The secret phrase is ${marker} and nothing more.` });
    const spent = sealed.balance();
    for (const mode of ["keyword", "hybrid"]) {
      const r = await search(sealed, c.id, { query: "secret", mode });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: "keyword_search_unavailable", param: "mode" });
    }
    expect(sealed.balance()).toEqual(spent);
    const files = (g: MemoryGateway) => [g.h.ctx.paths.db, `${g.h.ctx.paths.db}-wal`].map((p) => readFileSync(p));
    sealed.h.ctx.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(files(sealed).some((b) => b.includes(Buffer.from(marker)))).toBe(false);

    // The same text in a clear collection is on disk (the keyword index needs it): the scan can see it.
    const clear = memoryGateway();
    const cc = await collection(clear);
    await clear.call("POST", `/v1/memory/collections/${cc.id}/documents`, { documents: [{ text: `The secret phrase is ${marker}.` }] });
    clear.h.ctx.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(files(clear).some((b) => b.includes(Buffer.from(marker)))).toBe(true);
  });
});

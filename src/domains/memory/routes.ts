/**
 * /v1/memory/collections (spec §4.3), API key with the "memory" scope. Thin: each route
 * validates, calls one service function and shapes the answer; embedding calls put their signed
 * receipt in the response headers (x-svc-receipt, …) as POST /v1/embeddings does. Rules:
 * service.ts; docs: docs/memory.md.
 *
 *   POST   /v1/memory/collections                          {name, embedding_model?, chunk_size?, chunk_overlap?, metadata?}
 *   GET    /v1/memory/collections                          → {collections}
 *   DELETE /v1/memory/collections/:id
 *   POST   /v1/memory/collections/:id/documents            {documents: [{id?, text, metadata?}]}  (billed: embeddings)
 *   DELETE /v1/memory/collections/:id/documents/:doc_id
 *   POST   /v1/memory/collections/:id/search               {query, top_k?, filter?, mode?}        (billed: the query's embedding)
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { addDocuments, createCollection, deleteCollection, deleteDocument, listCollections, searchCollection } from "./service.ts";

const tags = ["memory"];
const security = [{ apiKey: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

export function memoryRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/memory/collections" })
    .use(guards.apiKey(ctx, "memory"))
    .post(
      "",
      ({ principal, body, set }) => {
        set.status = 201;
        return createCollection(ctx, principal.accountId, body);
      },
      {
        body: M.CreateBody,
        // 404 model_not_found (embedding_model), 409 collection_limit_reached (100 per account)
        response: { 201: M.Collection, ...errors(404, 409) },
        ...doc("Create a memory collection", "The collection keeps its embedding model (default memory.embedding_model) and the dimension the model first answers with."),
      },
    )
    .get("", ({ principal }) => namedList("collections", listCollections(ctx, principal.accountId)), {
      response: { 200: M.CollectionList },
      ...doc("The account's memory collections, oldest first (at most 200)"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        deleteCollection(ctx, principal.accountId, params.id);
        return { id: params.id, deleted: true as const };
      },
      { params: M.CollectionParams, response: { 200: M.CollectionDeleted }, ...doc("Delete a collection with its documents, chunks and vectors") },
    )
    .post(
      "/:id/documents",
      async ({ principal, params, body, set, request }) => {
        const added = await addDocuments(ctx, principal, params.id, body.documents, request.signal);
        Object.assign(set.headers, added.headers);
        return { collection_id: added.collection_id, documents: added.documents, usage: added.usage };
      },
      {
        params: M.CollectionParams,
        body: M.DocumentsBody,
        // 409 dimension_mismatch (the model's embeddings changed size); 502/503 from the embedding upstream are in the baseline
        response: { 200: M.DocumentsAdded, ...errors(409) },
        ...doc(
          "Add documents: chunked, embedded, stored (billed as embedding usage)",
          "All chunks of the request are embedded in one call (at most 2,048) on the caller's key, billed as embedding usage with a signed receipt in the x-svc-receipt headers. A document id given again replaces that document's chunks.",
        ),
      },
    )
    .delete(
      "/:id/documents/:doc_id",
      ({ principal, params }) => {
        deleteDocument(ctx, principal.accountId, params.id, params.doc_id);
        return { collection_id: params.id, document_id: params.doc_id, deleted: true as const };
      },
      { params: M.DocumentParams, response: { 200: M.DocumentDeleted }, ...doc("Delete a document's chunks and vectors") },
    )
    .post(
      "/:id/search",
      async ({ principal, params, body, set, request }) => {
        const found = await searchCollection(ctx, principal, params.id, body, request.signal);
        Object.assign(set.headers, found.headers);
        return { collection_id: found.collection_id, mode: found.mode, results: found.results, usage: found.usage };
      },
      {
        params: M.CollectionParams,
        body: M.SearchBody,
        response: { 200: M.SearchResults, ...errors(409) },
        ...doc(
          "Search a collection: top chunks by vector, keyword or hybrid (reciprocal rank fusion)",
          "vector and hybrid embed the query (billed as embedding usage, receipt in headers); keyword embeds nothing and is free. A seal_text collection answers keyword and hybrid with 400 keyword_search_unavailable.",
        ),
      },
    );
}

/**
 * The engine's refusals, as the ApiError the routes will answer with (one error shape, spec §7).
 * Types are stable snake_case; each message says what to change.
 */
import { ApiError, badRequest, invalidField, notFound } from "../../../core/errors.ts";

export const dimensionMismatch = (param: string, expected: number, got: number): ApiError =>
  badRequest("dimension_mismatch", `${param}: the collection's embeddings have ${expected} dimensions, got ${got}`, {
    param,
    expected_dimension: expected,
    dimension: got,
  });

/** Keyword and hybrid search need chunk text in the FTS5 index; a collection that seals its text has none there. */
export const keywordSearchUnavailable = (collectionId: string): ApiError =>
  badRequest(
    "keyword_search_unavailable",
    `collection ${collectionId} seals its chunk text (seal_text = true), so it has no keyword index; use mode "vector"`,
    { param: "mode", reason: "seal_text" },
  );

export const invalidVector = (param: string, reason: string): ApiError => invalidField(param, reason);

export const collectionNotFound = (): ApiError => notFound("collection");
export const documentNotFound = (): ApiError => notFound("document");

/** The embedder answered with the wrong number of vectors: a bug or an upstream fault, not the caller's input. */
export const embedderMismatch = (expected: number, got: number): ApiError =>
  new ApiError(502, "embedding_failed", `the embedder returned ${got} vectors for ${expected} chunks`);

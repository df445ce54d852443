/**
 * Sealed calls' sizes in one place: the schemas (models.ts) state them to the OpenAPI document,
 * the service enforces what a schema cannot. Spec §8: /v1/calls and /v1/calls/mine, 500 per
 * account. The text size and the salt length are svc's (docs/calls.md "Limits").
 */

/** Spec §8: an account holds at most this many calls, so each list returns all of them. */
export const CALLS_CAP = 500;

export const MAX_TEXT_CHARS = 32_768;

/**
 * Every salt is exactly this many bytes. A fixed length is what makes salt ‖ text split one way
 * only: with a free length, moving bytes between the salt and the text would reveal another
 * text under the same commitment.
 */
export const SALT_BYTES = 32;

/** Commits gathered under one root at most; a longer backlog becomes several roots in one pass. */
export const ANCHOR_BATCH_MAX = 10_000;

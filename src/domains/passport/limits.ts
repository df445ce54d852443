/**
 * Passports' sizes in one place: the schemas (models.ts) state them to the OpenAPI document,
 * the service enforces what a schema cannot. Spec §8: the passport directory returns at most 500.
 */

/** Spec §8: GET /v1/passport lists at most this many passports. */
export const DIRECTORY_CAP = 500;

/**
 * A handle: what /v1/passport/:handle, /v1/registry/identity/:handle and /v1/kya/public/:handle
 * are addressed by. Lowercase only, so two handles never differ by case alone.
 */
export const HANDLE_PATTERN = "^[a-z0-9][a-z0-9_-]{2,31}$";
export const HANDLE_RULE = "3-32 characters: lowercase letters, digits, - and _, starting with a letter or digit";

export const MAX_AGENT_NAME_CHARS = 100;

/**
 * Receipts whose signatures one mint checks at most. Each receipt is checked once and the
 * passport remembers how far it got, so a large history is verified over a few refreshes
 * instead of holding one request for minutes; runs beyond the checked point are not yet
 * counted as verified.
 */
export const VERIFY_PER_MINT = 20_000;

/** Commitments gathered under one root at most; a longer backlog becomes several roots in one pass. */
export const ANCHOR_BATCH_MAX = 10_000;

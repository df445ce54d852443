/**
 * The relays' sizes and counts in one place: the schemas (models.ts) state them to the OpenAPI
 * document, the service enforces what a schema cannot. Spec §8: GET /v1/relays returns at most
 * 100. The byte sizes, ttl bounds and the access window are operator settings (config.ts).
 */

/** Spec §8 (relays: 100): the list's cap, and the most relays one account may hold open at once. */
export const MAX_LIVE_RELAYS = 100;
export const RELAYS_LIST_CAP = 100;

export const MAX_OBJECTS = 20;
export const MAX_NAME_CHARS = 200;
export const MAX_CONTENT_TYPE_CHARS = 200;
export const MIN_PIN_CHARS = 4;
export const MAX_PIN_CHARS = 64;
export const MAX_ACCESSES = 10_000;
export const MIN_TTL_SECS = 60;

/** A text/* object up to this size comes inline (`text`) in the access answer; larger ones are fetched. */
export const INLINE_TEXT_MAX_BYTES = 64 * 1024;

/** Wrong (or missing) pins a relay takes before it locks for good and its content is destroyed. */
export const MAX_PIN_FAILURES = 10;

/** An ended relay's content-free row stays this long (the owner's history), then the purge job drops it. */
export const ENDED_RETENTION_MS = 30 * 86_400_000;

/**
 * A media type: type/subtype with optional simple parameters ("text/plain; charset=utf-8").
 * Tokens only (RFC 9110 §5.6.2), so the value is safe to send back as a Content-Type header.
 */
export const CONTENT_TYPE_PATTERN = "^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*([ \\t]*;[ \\t]*[A-Za-z0-9!#$&^_.+-]+=[A-Za-z0-9!#$&^_.+-]+)*$";
export const CONTENT_TYPE_REASON = 'must be a media type like "text/plain", "image/png" or "application/pdf" (parameters allowed: "; charset=utf-8")';

/** What a view-only relay serves (spec §4.1): images and text, shown inline, never downloads. */
export const viewable = (contentType: string): boolean => /^(image|text)\//i.test(contentType);

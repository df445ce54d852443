/**
 * The engine area's bounds (docs/engine.md). Not configurable: they bound storage and the size
 * of a prompt prepended to every call, not a business choice.
 */

/** Slugs: lowercase letters, digits and inner hyphens, as they appear in `engine/<slug>`. */
export const SLUG_PATTERN = "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$";

/** The longest system prompt a spec may carry (characters). */
export const MAX_SYSTEM_PROMPT = 32_000;

/** Drafts an account may hold at once (409 draft_limit_reached); published and retired builds are not counted, since they cannot be deleted. */
export const MAX_DRAFTS_PER_ACCOUNT = 100;

/** GET /v1/engine/builds returns at most this many, newest first. */
export const BUILDS_LIST_CAP = 200;

/** Parameter bounds, in the spec's integer units (canonical JSON holds integers only). */
export const PARAMETER_BOUNDS = {
  temperature_milli: { minimum: 0, maximum: 2000 },
  top_p_milli: { minimum: 0, maximum: 1000 },
  max_tokens: { minimum: 1, maximum: 1_000_000 },
} as const;

/**
 * The marketplace's sizes and names in one place: models.ts states them to the OpenAPI document,
 * the services enforce what a schema cannot (docs/services.md).
 */

/** Lowercase letters, digits and inner hyphens, 2-63 characters: safe in a URL path and readable. */
export const SLUG_PATTERN = "^[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$";
/** Literal segments of /v1/services/… (spec §9.3): a service may never take these slugs. */
export const RESERVED_SLUGS: readonly string[] = ["directory", "manage"];
export const MAX_NAME_CHARS = 100;
export const MAX_DESCRIPTION_CHARS = 2000;
/** The most a call may cost: 10,000 USD. */
export const MAX_PRICE_MICRO_USD = 10_000_000_000;
/** Live (not deleted) services one account may hold. */
export const MAX_SERVICES_PER_ACCOUNT = 100;
/** Spec §8: rows of GET /v1/services/manage/:slug/calls and of the directory. */
export const CALLS_CAP = 100;
export const DIRECTORY_CAP = 200;
/** A model handler's input text (the buyer's `input`). */
export const MAX_INPUT_CHARS = 32_000;
/** How long a buyer may take over paying, stated in the x402 terms; svc itself puts no deadline on a proof. */
export const MAX_TIMEOUT_SECONDS = 600;
/** Version of the signed call receipt's payload. */
export const PAYLOAD_VERSION = 1;

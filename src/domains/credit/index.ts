/**
 * GET /v1/credit: an API key's view of its account's credit and its own limits.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { creditPosition } from "./service.ts";
export { Credit } from "./models.ts";

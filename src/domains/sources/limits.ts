/**
 * The source sets' sizes in one place: the schemas (models.ts) state them to the OpenAPI
 * document, the service enforces what a schema cannot. The spec sets none of them (§8 lists no
 * sources cap); these are svc's, explained in docs/sources.md "Limits".
 */
export const MAX_NAME_CHARS = 200;
export const MAX_SOURCES = 100;
export const MAX_LABEL_CHARS = 200;
export const MAX_URL_CHARS = 2048;
/** A kind is a short lowercase token (web, paper, dataset, …), so it reads the same in every set. */
export const KIND_PATTERN = "^[a-z][a-z0-9_-]{0,31}$";
/** Sets an account may hold at once; GET /v1/sources/sets lists them all, so this is also the list's cap. */
export const MAX_SETS_PER_ACCOUNT = 200;

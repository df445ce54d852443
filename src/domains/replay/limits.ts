/**
 * The replay capsules' sizes in one place: the schemas (models.ts) state them to the OpenAPI
 * document, the service enforces what a schema cannot. The spec sets none of them; these are
 * svc's, explained in docs/replay.md "Limits".
 */
/** Capsules an account may hold (destroyed ones included: their rows are kept); also the list's cap. */
export const MAX_CAPSULES_PER_ACCOUNT = 200;
export const MAX_MESSAGES = 256;
export const MAX_MESSAGE_CHARS = 200_000;
export const MAX_CONTEXT_DOCUMENTS = 64;
export const MAX_MODEL_ID_CHARS = 200;
export const MAX_ID_CHARS = 128;

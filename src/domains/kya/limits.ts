/** KYA credentials' sizes in one place: the schemas state them, the service enforces what a schema cannot. */

/** GET /v1/kya/credentials returns at most this many, newest first (svc's cap; spec §8 names none). */
export const LIST_CAP = 200;

export const MAX_AGENT_NAME_CHARS = 100;

/**
 * State's names and limits in one place: the schemas (models.ts) state them to the OpenAPI
 * document, the service enforces the ones a schema cannot (sizes, counts). docs/state.md.
 */

/** Spec §8: 10,000 keys per account. */
export const MAX_KEYS_PER_ACCOUNT = 10_000;
/** Spec §8: GET /v1/state lists at most 1,000 keys; a namespace with more is truncated (first 1,000 in byte order). */
export const MAX_KEYS_LISTED = 1_000;
/** A value's JSON text, in UTF-8 bytes (256 KiB). */
export const MAX_VALUE_BYTES = 256 * 1024;

export const KEY_MAX = 256;
export const NAMESPACE_MAX = 128;
export const DEFAULT_NAMESPACE = "default";

/**
 * Keys and namespaces: letters, digits and `_ . : @ + ~ -`, starting with a letter, digit or
 * underscore. Every character is printable ASCII below 0x7f, so a key is safe in a URL path
 * unescaped and a prefix range ends at prefix + "\x7f".
 */
const NAME = (max: number) => `^[A-Za-z0-9_][A-Za-z0-9_.:@+~-]{0,${max - 1}}$`;
export const KEY_PATTERN = NAME(KEY_MAX);
export const NAMESPACE_PATTERN = NAME(NAMESPACE_MAX);
export const KEY_REASON = `must be 1-${KEY_MAX} characters of letters, digits and _ . : @ + ~ -, starting with a letter, digit or _`;
export const NAMESPACE_REASON = `must be 1-${NAMESPACE_MAX} characters of letters, digits and _ . : @ + ~ -, starting with a letter, digit or _`;

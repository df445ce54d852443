/**
 * The payment-request sizes in one place: models.ts states them to the OpenAPI document, the
 * service enforces what a schema cannot (docs/payments.md "Payment requests").
 */

export const MAX_MEMO_CHARS = 500;
/** Without expires_at a request stays open this long. */
export const DEFAULT_EXPIRY_MS = 7 * 86_400_000;
/** The furthest expires_at may be: an open request holds a place under the cap below. */
export const MAX_EXPIRY_MS = 90 * 86_400_000;
/** Unsettled, unexpired requests one account may hold at once. */
export const MAX_OPEN_REQUESTS = 1_000;
/** The only asset a configured chain names (its `usdt` token contract). */
export const ASSET = "USDT";
/** Version of the signed request and settlement payloads. */
export const PAYLOAD_VERSION = 1;

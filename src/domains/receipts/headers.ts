/**
 * Receipt data on the response of every billable call (spec §2.3: "response headers named
 * with the x-svc- prefix"). A billable route reserves, does the work, settles, then calls
 * setReceiptHeaders with the settlement — one function, so every route uses the same names:
 *
 *   x-svc-receipt-id            rcpt_…  (GET /v1/receipts/:id, share, badge)
 *   x-svc-receipt               the signed receipt: base64url(canonical JSON payload)
 *   x-svc-receipt-signature     0x-hex EIP-191 signature of that string (65 bytes)
 *   x-svc-receipt-signer        the signer's EIP-55 address
 *   x-svc-cost-micro-usd        what the call cost, integer micro-USD
 *   x-svc-run-id                the run the receipt is chained into, percent-encoded (only
 *                               when there is one; the caller chose it, so it may hold anything)
 *
 * The signature and signer are prefixed "receipt-" because X-Svc-Signature already means
 * the webhook HMAC (spec §6) and must not mean two things. The other values are ASCII by
 * construction: base64url, hex, ids, digits. A streamed response has sent its headers before the cost is known;
 * streaming routes carry the same fields in their final event instead (docs/receipts.md).
 */
import type { Reservation, Settlement } from "../../core/meter.ts";

export const RECEIPT_HEADERS = {
  id: "x-svc-receipt-id",
  receipt: "x-svc-receipt",
  signature: "x-svc-receipt-signature",
  signer: "x-svc-receipt-signer",
  cost: "x-svc-cost-micro-usd",
  runId: "x-svc-run-id",
} as const;

export function receiptHeaders(settlement: Settlement, reservation: Pick<Reservation, "runId">): Record<string, string> {
  const headers: Record<string, string> = { [RECEIPT_HEADERS.cost]: String(settlement.cost) };
  const r = settlement.receipt;
  if (r) {
    headers[RECEIPT_HEADERS.id] = r.id;
    headers[RECEIPT_HEADERS.receipt] = r.receipt;
    headers[RECEIPT_HEADERS.signature] = r.signature;
    headers[RECEIPT_HEADERS.signer] = r.signer;
  }
  // Percent-encoded: a CR, LF or non-ASCII character in a header would break the response.
  if (reservation.runId) headers[RECEIPT_HEADERS.runId] = encodeURIComponent(reservation.runId);
  return headers;
}

/** Sets the headers on an Elysia handler's `set` (or anything with a headers record). */
export function setReceiptHeaders(set: { headers: object }, settlement: Settlement, reservation: Pick<Reservation, "runId">): void {
  Object.assign(set.headers, receiptHeaders(settlement, reservation));
}

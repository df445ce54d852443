/**
 * Verifying a receipt — or any statement svc signs (mandate proofs, usage statements,
 * passport credentials share the format) — against this deployment's signers, for
 * POST /v1/receipts/verify, the badge and `svc receipts verify`.
 *
 * The rule (docs/receipts.md, "Which signers are accepted"): the signature must recover to a
 * known svc signer. The current signer vouches for anything. A retired signer vouches only for
 * statements dated up to its retirement: the payload's `settled_at` (receipts), else its
 * `issued_at` (proofs, statements, credentials), else its `created_at` (anchor log entries),
 * must not be after the signer's valid_until. So a retired key
 * that leaked cannot mint a receipt dated after its retirement that this route calls valid.
 * The bound is inclusive because times are milliseconds: a settle that committed just before
 * the rotation can carry the very millisecond the rotation then records.
 * The start of a window is not checked: a new key signing something dated a moment before its
 * window opened (a settle that took its time just as the rotation committed) proves nothing
 * false, while refusing it would call a genuine receipt invalid.
 *
 * Never throws on input: every malformed shape is an answer with valid:false and a reason.
 */
import { verifyStatement } from "../../core/statements.ts";
import { listSigners, type SignerRecord, signerView, type SignerView } from "./signers.ts";
import type { Context } from "../../context.ts";

/** A receipt is a few hundred characters; this bounds the work an anonymous caller can ask for. */
export const MAX_RECEIPT_CHARS = 65_536;

/** The payload fields that date a statement, in order of preference. */
export const TIME_FIELDS = ["settled_at", "issued_at", "created_at"] as const;

export type Payload = Record<string, unknown>;

export type ReceiptVerification =
  | { valid: true; recovered_address: string; payload: Payload; signer: SignerView & { current: boolean } }
  | { valid: false; reason: string; recovered_address: string | null; payload: Payload | null };

const SIGNATURE = /^(0x)?[0-9a-fA-F]{130}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

const malformed = (reason: string): ReceiptVerification => ({ valid: false, reason, recovered_address: null, payload: null });

/** The base64url JSON object a receipt string carries, or null. */
export function decodeReceipt(receipt: string): Payload | null {
  if (!BASE64URL.test(receipt)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(receipt, "base64url").toString("utf8"));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Payload) : null;
  } catch {
    return null;
  }
}

/** When the statement says it happened: ms, null when it carries no time, or why its time is unreadable. */
function statementTime(payload: Payload): { field: string; at: number } | { field: string; error: string } | null {
  for (const field of TIME_FIELDS) {
    if (!(field in payload)) continue;
    const value = payload[field];
    const at = typeof value === "string" && ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
    return Number.isFinite(at) ? { field, at } : { field, error: `payload ${field} is not an ISO 8601 UTC time` };
  }
  return null;
}

/** Checks {receipt, signature} against `signers` (every signer this deployment ever had). */
export function verifyReceipt(receipt: unknown, signature: unknown, signers: SignerRecord[]): ReceiptVerification {
  if (receipt === undefined || receipt === null) return malformed("receipt is required");
  if (typeof receipt !== "string") return malformed("receipt must be a string (base64url of the JSON payload)");
  if (receipt.length > MAX_RECEIPT_CHARS) return malformed(`receipt is longer than ${MAX_RECEIPT_CHARS} characters`);
  if (!BASE64URL.test(receipt)) return malformed("receipt is not base64url (A-Z a-z 0-9 - _, no padding)");
  if (decodeReceipt(receipt) === null) return malformed("receipt does not decode to a JSON object");
  if (signature === undefined || signature === null) return malformed("signature is required");
  if (typeof signature !== "string" || !SIGNATURE.test(signature)) return malformed("signature must be 0x-prefixed hex of 65 bytes (r ‖ s ‖ v)");

  const checked = verifyStatement(receipt, signature, signers.map((s) => s.address));
  // A signature that cannot be recovered is as malformed as a bad hex string: nothing to show.
  if (!checked.valid) return checked.recovered_address === null ? malformed(checked.reason) : checked;

  const { recovered_address, payload } = checked;
  const signer = signers.find((s) => s.address.toLowerCase() === recovered_address.toLowerCase())!;
  const view = { ...signerView(signer), current: signer.validUntil === null };
  if (signer.validUntil === null) return { valid: true, recovered_address, payload, signer: view };

  const time = statementTime(payload);
  const retired = `signed by ${signer.address}, a signer retired at ${view.valid_until}`;
  if (time === null) return { valid: false, reason: `${retired}, and the payload carries no ${TIME_FIELDS.join(", ")} to place it inside its window`, recovered_address, payload };
  if ("error" in time) return { valid: false, reason: `${retired}; ${time.error}`, recovered_address, payload };
  if (time.at > signer.validUntil) return { valid: false, reason: `${retired}, but its ${time.field} is after then`, recovered_address, payload };
  return { valid: true, recovered_address, payload, signer: view };
}

/** A receipt checked against every signer this deployment ever had (the media provenance check). */
export function checkReceipt(ctx: Context, receipt: unknown, signature: unknown): ReceiptVerification {
  return verifyReceipt(receipt, signature, listSigners(ctx.db));
}

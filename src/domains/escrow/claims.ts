/**
 * Escrow claims (docs/payments.md "Escrow claims"): claim inputs prepared from one of the
 * account's own signed receipts, kept so the account can list and fetch them again. svc holds
 * no escrow and moves no money here: it checks the receipt and lays out what a contract would
 * check.
 *
 * Whose receipt: only the caller's account's. A receipt may be shared publicly, and a claim
 * prepared by someone else would present another account's work as theirs.
 *
 * The one table is escrow_claims; this is the only file that names it in SQL.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, forbidden, notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { checkReceipt } from "../receipts/index.ts";
import { claimInputs, type ClaimInputs } from "./inputs.ts";
// Types only: the shapes served are declared once, in models.ts.
import type { Claim } from "./models.ts";

export type ClaimView = Static<typeof Claim>;

/** What `claimable: true` states, and what it does not: served on every claim. */
export const CLAIMABLE_MEANS =
  "only that the signature recovers to this deployment's receipt signer (valid for the receipt's date) and that the inputs were derived from exactly the signed payload; " +
  "it does not say the work was acceptable, that any escrow holds funds for it, or that it has not already been claimed on-chain";

interface Row {
  request_id: string;
  receipt: string;
  signature: string;
  inputs: string;
  created_at: number;
}

function view(row: Row): ClaimView {
  return {
    request_id: row.request_id,
    claimable: true,
    claimable_means: CLAIMABLE_MEANS,
    inputs: JSON.parse(row.inputs) as ClaimInputs,
    receipt: row.receipt,
    created_at: isoTime(row.created_at),
  };
}

const claimOf = (ctx: Context, accountId: string, requestId: string): Row | null =>
  ctx.db.query<Row, [string, string]>("SELECT request_id, receipt, signature, inputs, created_at FROM escrow_claims WHERE account_id = ? AND request_id = ?").get(accountId, requestId);

/**
 * POST /v1/escrow/claims. A receipt already prepared answers its stored claim (`created` false):
 * the inputs are a function of the receipt and signature, so preparing again changes nothing.
 */
export function prepareClaim(ctx: Context, accountId: string, input: { receipt: string; signature: string }): { claim: ClaimView; created: boolean } {
  const checked = checkReceipt(ctx, input.receipt, input.signature);
  if (!checked.valid) throw new ApiError(422, "receipt_not_verified", `the receipt does not verify: ${checked.reason}`, { reason: checked.reason });
  const { payload } = checked;
  // Mandate proofs, usage statements and other signed statements verify too; only a receipt settles a request.
  if (payload.type !== "receipt" || typeof payload.id !== "string" || typeof payload.account !== "string") {
    throw new ApiError(422, "not_a_receipt", `the statement verifies but is not a receipt (its type is ${JSON.stringify(payload.type ?? null)}); claims are prepared from receipts of metered calls`);
  }
  if (payload.account !== accountId) throw forbidden("receipt_of_another_account", "the receipt is another account's; a claim is prepared only from the caller's own receipts");
  const inputs = claimInputs(input.receipt, input.signature, checked.recovered_address, { ...payload, id: payload.id, account: payload.account });
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const inserted = ctx.db
      .query<Row, [string, string, string, string, string, number]>(
        `INSERT INTO escrow_claims (account_id, request_id, receipt, signature, inputs, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id, request_id) DO NOTHING RETURNING request_id, receipt, signature, inputs, created_at`,
      )
      .get(accountId, inputs.request_id, input.receipt, inputs.signature, JSON.stringify(inputs), now);
    return inserted ? { claim: view(inserted), created: true } : { claim: view(claimOf(ctx, accountId, inputs.request_id)!), created: false };
  });
}

/** GET /v1/escrow/claims: newest first. */
export function listClaims(ctx: Context, accountId: string, limit: number): ClaimView[] {
  return ctx.db
    .query<Row, [string, number]>("SELECT request_id, receipt, signature, inputs, created_at FROM escrow_claims WHERE account_id = ? ORDER BY seq DESC LIMIT ?")
    .all(accountId, limit)
    .map(view);
}

/** GET /v1/escrow/claims/:request_id: another account's answers the 404 an unknown one does. */
export function getClaim(ctx: Context, accountId: string, requestId: string): ClaimView {
  const row = claimOf(ctx, accountId, requestId);
  if (!row) throw notFound("escrow claim");
  return view(row);
}

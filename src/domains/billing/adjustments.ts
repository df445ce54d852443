/**
 * Operator credit adjustments (`svc admin credit grant|debit`, and the console later): a signed
 * ledger adjustment with its reason, audited in the same transaction, so the trail can never
 * disagree with the balance. A debit never takes more than the account can spend, and an unknown
 * account is a 404 (both refused by the ledger).
 */
import type { Actor } from "../../core/audit.ts";
import { invalidField } from "../../core/errors.ts";
import type { LedgerEntry } from "../../core/ledger.ts";
import type { MicroUsd } from "../../core/money.ts";
import type { Context } from "../../context.ts";

export interface AdjustmentInput {
  accountId: string;
  direction: "grant" | "debit";
  amount: MicroUsd;
  /** Why: kept on the ledger entry and in the audit log. */
  reason: string;
}

export function adjustCredit(ctx: Context, actor: Actor, input: AdjustmentInput): LedgerEntry {
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) throw invalidField("amount_micro_usd", "must be a whole number of micro-USD greater than 0");
  const reason = input.reason.trim();
  if (!reason) throw invalidField("reason", "is required: an adjustment without a reason cannot be audited");
  return ctx.tx.run(() => {
    const entry = ctx.ledger.adjust(input.accountId, input.direction === "grant" ? input.amount : -input.amount, { type: "operator", memo: reason });
    ctx.audit.record(actor, `credit.${input.direction}`, input.accountId, { amount_micro_usd: input.amount, reason, entry_id: entry.id });
    return entry;
  });
}

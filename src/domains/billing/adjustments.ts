/**
 * Operator credit adjustments (`svc admin credit grant|debit`, and the console later): a signed
 * ledger adjustment with its reason, audited in the same transaction, so the trail can never
 * disagree with the balance. A debit never takes more than the account can spend, and an unknown
 * account is a 404 (both refused by the ledger).
 *
 * A debit the account cannot cover is a 409, not the ledger's 402: 402 insufficient_credit tells
 * the caller to pay (the app adds x402 terms to it), and here the caller is the operator, who has
 * nothing to pay; what they asked for conflicts with the account's state.
 */
import type { Actor } from "../../core/audit.ts";
import { ApiError, invalidField } from "../../core/errors.ts";
import { InsufficientCredit, type LedgerEntry } from "../../core/ledger.ts";
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
  // Taking credit needs the money lease, before the transaction: waiting for a server to yield it
  // while holding the database's write lock would keep that server from yielding (docs/money.md).
  if (input.direction === "debit") ctx.ledger.lease.requireSpend();
  try {
    return ctx.tx.run(() => {
      const entry = ctx.ledger.adjust(input.accountId, input.direction === "grant" ? input.amount : -input.amount, { type: "operator", memo: reason });
      ctx.audit.record(actor, `credit.${input.direction}`, input.accountId, { amount_micro_usd: input.amount, reason, entry_id: entry.id });
      return entry;
    });
  } catch (err) {
    if (!(err instanceof InsufficientCredit)) throw err;
    throw new ApiError(409, "insufficient_credit", `spendable credit does not cover this debit: the account can spend ${err.spendableMicroUsd} micro-USD, and an adjustment never takes more`, {
      param: "amount_micro_usd",
      required_micro_usd: err.requiredMicroUsd,
      spendable_micro_usd: err.spendableMicroUsd,
    });
  }
}

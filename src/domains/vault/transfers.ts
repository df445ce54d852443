/**
 * Transfers between two holders of one asset. A transfer can never make a position negative:
 * the debit is one UPDATE that only matches while the position covers the amount, run in the
 * same write transaction as the credit, the record and the chain entry, so transfers fired at
 * once are applied one after another and each sees the position the previous one left (the
 * table's CHECK (position_micro_usd >= 0) backs it). A refused transfer changes nothing.
 */
import { ApiError, invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { ownAsset } from "./assets.ts";
import { notify } from "./events.ts";
import { holderOf, movementEvent } from "./holders.ts";
import { listMovements, recordMovement, type TransferView } from "./movements.ts";

export interface TransferInput {
  assetId: string;
  from: string;
  to: string;
  amount: number;
  memo: string | null;
}

export function transfer(ctx: Context, accountId: string, input: TransferInput): TransferView {
  if (input.from === input.to) throw invalidField("to_holder_id", "must differ from from_holder_id");
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, input.assetId);
    const from = holderOf(ctx, asset, input.from);
    const to = holderOf(ctx, asset, input.to);
    const now = ctx.clock.now();
    const debited = ctx.db
      .query("UPDATE vault_holders SET position_micro_usd = position_micro_usd - ?1, updated_at = ?2 WHERE id = ?3 AND position_micro_usd >= ?1")
      .run(input.amount, now, from.id).changes;
    if (!debited) {
      throw new ApiError(409, "insufficient_position", "amount_micro_usd: more than the sending holder's position; nothing was moved", { param: "amount_micro_usd", holder_id: from.id });
    }
    ctx.db.query("UPDATE vault_holders SET position_micro_usd = position_micro_usd + ?, updated_at = ? WHERE id = ?").run(input.amount, now, to.id);
    const movement = recordMovement(ctx, { accountId, assetId: asset.id, kind: "transfer", from: from.id, to: to.id, amount: input.amount, memo: input.memo });
    const event = movementEvent(movement);
    notify(ctx, "vault_transfer_sent", accountId, [from.wallet], event);
    notify(ctx, "vault_transfer_received", accountId, [to.wallet], event);
    return movement;
  });
}

/** Issues and transfers, newest first, at most 100 (spec §8); `assetId` narrows to one of the account's assets. */
export function listTransfers(ctx: Context, accountId: string, assetId: string | null): TransferView[] {
  if (assetId) ownAsset(ctx, accountId, assetId);
  return listMovements(ctx, accountId, assetId);
}

/**
 * A passport's figures (spec §2.4 stats), each read through the owning area's front door:
 *
 *   verified_runs      runs (receipts chained by svc_run_id) every receipt of which has been
 *                      checked here: its EIP-191 signature recovers to one of svc's receipt
 *                      signers and its payload names this account and this run
 *   anchored_runs      runs every receipt of which lies under a root with an anchor in status
 *                      anchored: the periodic receipt batches (anchors), or a proof root over
 *                      the whole run as it is now (runs, POST /v1/runs/:id/proof)
 *   receipts           signed receipts the account holds (receipts)
 *   metered_events     usage events over the account's history (usage)
 *   metered_spend_micro_usd   what they cost (usage)
 *   active_mandates    mandates in status active (mandates)
 *   operates_under_budget_caps   at least one key can spend now, and every such key has a
 *                      monthly or a lifetime cap (keys; a mandate's key has its budget as one)
 *   first_seen         when the account was created (accounts)
 *
 * Counts and sums only: a passport states a track record and rates nothing.
 */
import type { Context } from "../../context.ts";
import { getAccount } from "../accounts/index.ts";
import { anchoredReceiptSeq } from "../anchors/index.ts";
import { listKeys } from "../keys/index.ts";
import { listMandates } from "../mandates/index.ts";
import { accountReceiptsAfter, checkReceipt, receiptTotalsOf, runTotalsOf } from "../receipts/index.ts";
import { runProofAnchored } from "../runs/index.ts";
import { usageTotalsOf } from "../usage/index.ts";
import { VERIFY_PER_MINT } from "./limits.ts";

export interface PassportStats {
  verified_runs: number;
  anchored_runs: number;
  receipts: number;
  metered_events: number;
  metered_spend_micro_usd: number;
  active_mandates: number;
  operates_under_budget_caps: boolean;
  first_seen: string;
}

/** How far signature checking of the account's receipts has got (kept on the passport row). */
export interface Verification {
  checkedSeq: number;
  failedRuns: string[];
}

const PAGE = 1_000;

/**
 * Checks the receipts minted since the last check, oldest first, at most VERIFY_PER_MINT. A
 * receipt is good when it verifies against svc's signers (a retired signer only for what it
 * signed before retiring) and its payload names the account and the run it is stored under.
 */
export function verifyNewReceipts(ctx: Context, accountId: string, from: Verification): Verification {
  let checked = from.checkedSeq;
  const failed = new Set(from.failedRuns);
  let left = VERIFY_PER_MINT;
  while (left > 0) {
    const rows = accountReceiptsAfter(ctx, accountId, checked, Math.min(PAGE, left));
    if (!rows.length) break;
    for (const r of rows) {
      const v = checkReceipt(ctx, r.receipt, r.signature);
      const good = v.valid && v.payload.account === accountId && (v.payload.run_id ?? null) === r.run_id;
      if (!good && r.run_id !== null) failed.add(r.run_id);
      checked = r.seq;
    }
    left -= rows.length;
  }
  return { checkedSeq: checked, failedRuns: [...failed].sort() };
}

export function passportStats(ctx: Context, accountId: string, verification: Verification): PassportStats {
  const failed = new Set(verification.failedRuns);
  const anchoredSeq = anchoredReceiptSeq(ctx);
  let verified = 0;
  let anchored = 0;
  for (const run of runTotalsOf(ctx, accountId, Number.MAX_SAFE_INTEGER)) {
    if (run.last_seq <= verification.checkedSeq && !failed.has(run.run_id)) verified++;
    if (run.last_seq <= anchoredSeq || runProofAnchored(ctx, accountId, run)) anchored++;
  }
  const usage = usageTotalsOf(ctx, accountId);
  const spending = listKeys(ctx, accountId).filter((k) => k.status === "active");
  return {
    verified_runs: verified,
    anchored_runs: anchored,
    receipts: receiptTotalsOf(ctx, accountId).count,
    metered_events: usage.events,
    metered_spend_micro_usd: usage.cost_micro_usd,
    active_mandates: listMandates(ctx, accountId).filter((m) => m.status === "active").length,
    operates_under_budget_caps: spending.length > 0 && spending.every((k) => k.monthly_cap_micro_usd !== null || k.total_cap_micro_usd !== null),
    first_seen: getAccount(ctx, accountId).created_at,
  };
}

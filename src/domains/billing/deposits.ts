/**
 * USDT deposits: an account claims an on-chain transfer to the treasury by its transaction
 * hash; svc verifies it over the chain's RPC (transfer-check.ts), records it pending, and
 * credits it once it has the chain's required confirmations. x402 payments (x402.ts) go
 * through the same records, so a transfer credits once whether it arrived as a deposit or as
 * a payment.
 *
 * Exactly once: each (chain id, tx hash, log index) is one row (UNIQUE), and the row flips
 * pending → credited with a guarded UPDATE in the SAME write transaction that credits the
 * ledger and emits deposit_credited. SQLite serialises write transactions, so however many
 * requests, re-checks and processes race on one transfer, one of them flips it and the others
 * see it credited.
 *
 * Whose deposit: the caller's account, and only for transfers sent FROM one of the account's
 * linked wallets. A transaction hash is public, so without that rule anyone could claim
 * anyone's deposit. A transfer from an unlinked wallet is refused (403 sender_not_linked):
 * link the wallet (POST /v1/auth/wallets) and post again, or the operator credits it by hand
 * (`svc admin credit grant`).
 */
import { treasurySpendOf } from "./treasury-spends.ts";
import { isoTime } from "../../core/clock.ts";
import type { Erc20Transfer } from "../../core/chain.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, conflict, forbidden } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { tokenUnitsToMicroUsd } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { listWallets } from "../auth/index.ts";
import { chainNamed, type ChainConfig, inspectTransaction, type Inspection, normalizeTxHash, requireDepositsEnabled, treasuryTransfers } from "./transfer-check.ts";

export type DepositSource = "deposit" | "payment";

export interface DepositRow {
  id: string;
  account_id: string;
  chain: string;
  chain_id: number;
  tx_hash: string;
  log_index: number;
  tx_log_position: number;
  token: string;
  from_address: string;
  to_address: string;
  amount_units: string;
  decimals: number;
  amount_micro_usd: number;
  block_number: number;
  confirmations: number;
  required_confirmations: number;
  status: "pending" | "credited";
  source: DepositSource;
  consumed_at: number | null;
  ledger_entry_id: string | null;
  last_error: string | null;
  created_at: number;
  checked_at: number;
  credited_at: number | null;
}

export interface DepositView {
  id: string;
  status: "pending" | "credited";
  chain: string;
  chain_id: number;
  tx_hash: string;
  log_index: number;
  token: string;
  from: string;
  to: string;
  /** Token base units, as a decimal string. */
  amount: string;
  decimals: number;
  amount_micro_usd: number;
  block_number: number;
  confirmations: number;
  required_confirmations: number;
  source: DepositSource;
  /** The transaction on the chain's explorer, when the operator configured one. */
  explorer_url: string | null;
  /** Why the last re-check could not confirm a pending deposit; null when it could. */
  last_error: string | null;
  created_at: string;
  credited_at: string | null;
}

/** GET /v1/billing/deposits returns at most this many (spec §8). */
export const DEPOSIT_LIST_CAP = 100;
/** The recurring job stops re-checking a pending deposit this long after it was recorded (refresh still does). */
const AUTO_RECHECK_MS = 7 * 86_400_000;
const RECHECK_BATCH = 200;
export const RECHECK_EVERY_MS = 30_000;

export function depositView(ctx: Context, row: DepositRow): DepositView {
  const explorer = ctx.config.chains.find((c) => c.name === row.chain)?.explorer_url;
  return {
    id: row.id,
    status: row.status,
    chain: row.chain,
    chain_id: row.chain_id,
    tx_hash: row.tx_hash,
    log_index: row.log_index,
    token: toChecksumAddress(row.token),
    from: toChecksumAddress(row.from_address),
    to: toChecksumAddress(row.to_address),
    amount: row.amount_units,
    decimals: row.decimals,
    amount_micro_usd: row.amount_micro_usd,
    block_number: row.block_number,
    confirmations: row.confirmations,
    required_confirmations: row.required_confirmations,
    source: row.source,
    explorer_url: explorer ? `${explorer.replace(/\/+$/, "")}/tx/${row.tx_hash}` : null,
    last_error: row.last_error,
    created_at: isoTime(row.created_at),
    credited_at: row.credited_at === null ? null : isoTime(row.credited_at),
  };
}

const alreadyClaimed = (): ApiError =>
  // Deliberately silent about which account holds it.
  conflict("deposit_already_claimed", "this transfer has already been claimed by another account");

/** A transfer with its amount in micro-USD, ready to record. */
interface Claimable extends Erc20Transfer {
  microUsd: number;
}

/**
 * The treasury transfers of an inspected transaction that `accountId` may claim: sent from
 * one of its wallets, worth at least one micro-USD.
 */
export function claimableTransfers(ctx: Context, accountId: string, inspection: Inspection): Claimable[] {
  const paying = treasuryTransfers(inspection, ctx.config.billing.treasury);
  const wallets = new Set(listWallets(ctx, accountId).map((w) => w.address.toLowerCase()));
  const mine = paying.filter((t) => wallets.has(t.from));
  if (!mine.length) {
    const from = toChecksumAddress(paying[0]!.from);
    throw forbidden("sender_not_linked", `the transfer was sent from ${from}, which is not a wallet linked to this account; link it (POST /v1/auth/wallets) and post the transaction again`, { from });
  }
  const decimals = inspection.chain.decimals;
  const out: Claimable[] = [];
  for (const t of mine) {
    let microUsd: number;
    try {
      microUsd = tokenUnitsToMicroUsd(t.value, decimals);
    } catch {
      throw new ApiError(400, "amount_too_large", `the transfer of ${t.value} base units is larger than svc can hold as credit`);
    }
    if (microUsd > 0) out.push({ ...t, microUsd });
  }
  if (!out.length) throw new ApiError(400, "amount_too_small", "the transfer is worth less than one micro-USD; nothing can be credited");
  return out;
}

/**
 * Records the transfers for the account (or finds them already recorded) and moves each as far
 * as its confirmations allow, in one write transaction. `created` says whether any row is new.
 */
export function recordTransfers(ctx: Context, accountId: string, inspection: Inspection, transfers: Claimable[], source: DepositSource): { rows: DepositRow[]; created: boolean } {
  const { chain, txHash } = inspection;
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    let created = false;
    const rows = transfers.map((t) => {
      const spent = treasurySpendOf(ctx, chain.chain_id, txHash, t.position);
      if (spent) throw conflict("transfer_already_spent", `this transfer already paid for a ${spent.purpose.replace(/_/g, " ")} (${spent.ref}); it cannot also be credit`);
      let row = ctx.db
        .query<DepositRow, (string | number)[]>(
          `INSERT INTO deposits (id, account_id, chain, chain_id, tx_hash, log_index, tx_log_position, token, from_address, to_address, amount_units, decimals,
                                 amount_micro_usd, block_number, confirmations, required_confirmations, source, created_at, checked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING RETURNING *`,
        )
        .get(newId("dep"), accountId, chain.name, chain.chain_id, txHash, t.logIndex, t.position, t.token, t.from, t.to, t.value.toString(), chain.decimals, t.microUsd, inspection.blockNumber, inspection.confirmations, chain.confirmations, source, now, now);
      if (row) created = true;
      else {
        row = ctx.db
          .query<DepositRow, [number, string, number, number]>("SELECT * FROM deposits WHERE chain_id = ? AND tx_hash = ? AND (tx_log_position = ? OR log_index = ?) LIMIT 1")
          .get(chain.chain_id, txHash, t.position, t.logIndex)!;
      }
      if (row.account_id !== accountId) throw alreadyClaimed();
      return advance(ctx, row, inspection, chain);
    });
    return { rows, created };
  });
}

/**
 * Brings a pending row up to what the chain says now, and credits it when it has enough
 * confirmations. Runs inside the caller's transaction.
 */
function advance(ctx: Context, row: DepositRow, inspection: Inspection, chain: ChainConfig): DepositRow {
  if (row.status === "credited") return row;
  const now = ctx.clock.now();
  const updated = ctx.db
    .query<DepositRow, [number, number, number, number, string]>(
      "UPDATE deposits SET confirmations = ?, block_number = ?, required_confirmations = ?, checked_at = ?, last_error = NULL WHERE id = ? AND status = 'pending' RETURNING *",
    )
    .get(inspection.confirmations, inspection.blockNumber, chain.confirmations, now, row.id);
  // The caller's copy may be stale (read before another request's transaction committed):
  // the guarded UPDATE is the truth, and no match means the row is already credited.
  if (!updated) return getDeposit(ctx, row.id)!;
  if (updated.confirmations < updated.required_confirmations) return updated;
  return credit(ctx, updated);
}

/** pending → credited, the ledger credit and deposit_credited: all or nothing, once. */
function credit(ctx: Context, row: DepositRow): DepositRow {
  const now = ctx.clock.now();
  const flipped = ctx.db.query<DepositRow, [number, string]>("UPDATE deposits SET status = 'credited', credited_at = ? WHERE id = ? AND status = 'pending' RETURNING *").get(now, row.id);
  if (!flipped) return getDeposit(ctx, row.id)!;
  const entry = ctx.ledger.credit(flipped.account_id, flipped.amount_micro_usd, {
    type: "deposit",
    id: flipped.id,
    memo: `${flipped.source === "payment" ? "x402 payment" : "USDT deposit"} on ${flipped.chain}: ${flipped.tx_hash} log ${flipped.log_index}`,
  });
  ctx.db.query("UPDATE deposits SET ledger_entry_id = ? WHERE id = ?").run(entry.id, flipped.id);
  ctx.outbox.emit("deposit_credited", flipped.account_id, {
    deposit_id: flipped.id,
    chain: flipped.chain,
    tx_hash: flipped.tx_hash,
    log_index: flipped.log_index,
    amount_micro_usd: flipped.amount_micro_usd,
  });
  return { ...flipped, ledger_entry_id: entry.id };
}

/**
 * An x402 proof lets one request through: the first request carrying it once its transfer is
 * credited. Only transfers that first arrived as payments qualify (a transfer posted as a
 * deposit was never offered as a payment). Atomic, so two requests racing with one proof
 * cannot both pass. Returns the rows this call consumed.
 */
export function consumePayment(ctx: Context, rows: DepositRow[]): DepositRow[] {
  const now = ctx.clock.now();
  return ctx.tx.run(() =>
    rows.flatMap((r) => ctx.db.query<DepositRow, [number, string]>("UPDATE deposits SET consumed_at = ? WHERE id = ? AND source = 'payment' AND status = 'credited' AND consumed_at IS NULL RETURNING *").all(now, r.id)),
  );
}

export function getDeposit(ctx: Context, id: string): DepositRow | null {
  return ctx.db.query<DepositRow, [string]>("SELECT * FROM deposits WHERE id = ?").get(id);
}

/**
 * POST /v1/billing/deposits: verify the transaction on the named chain and claim its treasury
 * transfers for the account. `created` is false when every transfer was already recorded
 * (a re-post: nothing new is credited).
 */
export async function claimDeposit(ctx: Context, input: { accountId: string; chain: string; txHash: string; source?: DepositSource }): Promise<{ deposits: DepositView[]; created: boolean }> {
  requireDepositsEnabled(ctx.config);
  const chain = chainNamed(ctx.config, input.chain);
  const txHash = normalizeTxHash(input.txHash);
  const inspection = await inspectTransaction(chain, txHash);
  const transfers = claimableTransfers(ctx, input.accountId, inspection);
  const { rows, created } = recordTransfers(ctx, input.accountId, inspection, transfers, input.source ?? "deposit");
  return { deposits: rows.map((r) => depositView(ctx, r)), created };
}

/** GET /v1/billing/deposits: newest first, at most 100. */
/** Deposits on a chain still waiting for their confirmations (what removing the chain would strand). */
export function pendingDepositCount(ctx: Context, chainId: number): number {
  return ctx.db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM deposits WHERE chain_id = ? AND status = 'pending'").get(chainId)!.n;
}

export function listDeposits(ctx: Context, accountId: string): DepositView[] {
  return ctx.db
    .query<DepositRow, [string, number]>("SELECT * FROM deposits WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
    .all(accountId, DEPOSIT_LIST_CAP)
    .map((r) => depositView(ctx, r));
}

function noteError(ctx: Context, rows: DepositRow[], message: string): void {
  const now = ctx.clock.now();
  const stmt = ctx.db.query("UPDATE deposits SET last_error = ?, checked_at = ? WHERE id = ? AND status = 'pending'");
  ctx.tx.run(() => {
    for (const row of rows) stmt.run(message, now, row.id);
  });
}

/**
 * Re-checks pending deposits against their chains: one RPC round per transaction. A row is
 * matched to its transfer by its position in the receipt and must still be the same transfer
 * (token, sender, recipient, amount); a transaction a reorg dropped or changed stays pending
 * with last_error saying why. Returns how many rows were checked and how many got credited.
 */
export async function recheckDeposits(ctx: Context, rows: DepositRow[]): Promise<{ checked: number; credited: number; deposits: DepositView[] }> {
  const byTx = new Map<string, DepositRow[]>();
  for (const row of rows) {
    const key = `${row.chain_id}:${row.tx_hash}`;
    byTx.set(key, [...(byTx.get(key) ?? []), row]);
  }
  let credited = 0;
  const after: DepositRow[] = [];
  for (const group of byTx.values()) {
    const first = group[0]!;
    const chain = ctx.config.chains.find((c) => c.name === first.chain);
    if (!chain || chain.chain_id !== first.chain_id) {
      noteError(ctx, group, `chain "${first.chain}" (chain id ${first.chain_id}) is no longer configured; the operator must restore it for this deposit to be confirmed`);
      after.push(...group.map((r) => getDeposit(ctx, r.id)!));
      continue;
    }
    let inspection: Inspection;
    try {
      inspection = await inspectTransaction(chain, first.tx_hash);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      noteError(ctx, group, err.message);
      after.push(...group.map((r) => getDeposit(ctx, r.id)!));
      continue;
    }
    const updated = ctx.tx.run(() =>
      group.map((row) => {
        const t = inspection.transfers.find((x) => x.position === row.tx_log_position);
        const same = t && t.token === row.token && t.from === row.from_address && t.to === row.to_address && t.value.toString() === row.amount_units;
        if (!same) {
          ctx.db
            .query("UPDATE deposits SET last_error = ?, checked_at = ? WHERE id = ? AND status = 'pending'")
            .run("the transfer is no longer in this transaction's receipt (a chain reorganisation?); it stays pending", ctx.clock.now(), row.id);
          return getDeposit(ctx, row.id)!;
        }
        const before = getDeposit(ctx, row.id)!;
        const next = advance(ctx, before, inspection, chain);
        if (before.status === "pending" && next.status === "credited") credited++;
        return next;
      }),
    );
    after.push(...updated);
  }
  return { checked: rows.length, credited, deposits: after.map((r) => depositView(ctx, r)) };
}

/** POST /v1/billing/deposits/refresh: the caller's pending deposits, re-checked now. */
export function refreshDeposits(ctx: Context, accountId: string) {
  const rows = ctx.db
    .query<DepositRow, [string, number]>("SELECT * FROM deposits WHERE account_id = ? AND status = 'pending' ORDER BY created_at DESC LIMIT ?")
    .all(accountId, DEPOSIT_LIST_CAP);
  return recheckDeposits(ctx, rows);
}

/** The recurring job's share: pending deposits recorded in the last week, least recently checked first. */
export function recheckAllPending(ctx: Context) {
  const rows = ctx.db
    .query<DepositRow, [number, number]>("SELECT * FROM deposits WHERE status = 'pending' AND created_at >= ? ORDER BY checked_at LIMIT ?")
    .all(ctx.clock.now() - AUTO_RECHECK_MS, RECHECK_BATCH);
  return recheckDeposits(ctx, rows);
}

export function registerDepositJobs(ctx: Context): void {
  // Pending deposits get credited without anyone asking once their confirmations arrive.
  ctx.scheduler.every("billing.deposits_recheck", RECHECK_EVERY_MS, async () => {
    if (!ctx.config.chains.length) return;
    const { checked, credited } = await recheckAllPending(ctx);
    if (credited) ctx.log.info("deposits credited by re-check", { checked, credited });
  });
}

/**
 * The launches area's tables (migrations/0049_launches.sql): the only file that names them in SQL.
 */
import type { Context } from "../../context.ts";

export interface LaunchRow {
  id: string;
  account_id: string;
  org_id: string | null;
  name: string;
  slug: string;
  custodian: string;
  decimals: number;
  interval_s: number;
  spec_canonical: string;
  digest: string;
  reveal_at: number | null;
  verdict_signer: string;
  status: "active" | "retired";
  chain: string | null;
  chain_id: number | null;
  token: string | null;
  bound_at: number | null;
  mint_nonce: number;
  fee_paid_until: number | null;
  created_at: number;
  updated_at: number;
  retired_at: number | null;
}

export interface CheckRow {
  launch_id: string;
  seq: number;
  status: "VERIFIED" | "DISCREPANCY" | "UNAVAILABLE";
  trigger: "scheduled" | "owner" | "public";
  reserves_figure: string | null;
  reserves_units: string | null;
  supply_units: string | null;
  decimals: number;
  chain_id: number | null;
  token: string | null;
  block_number: number | null;
  evidence: string | null;
  reason: string | null;
  checked_at: number;
}

export interface ActionRow {
  launch_id: string;
  seq: number;
  kind: string;
  data: string;
  created_at: number;
  prev_hash: string;
  entry_hash: string;
}

export interface MintAuthorizationRow {
  id: string;
  launch_id: string;
  nonce: number;
  to_address: string;
  amount_units: string;
  deadline: number;
  check_seq: number;
  digest: string;
  signature: string;
  signer: string;
  created_at: number;
}

export interface RedemptionRow {
  id: string;
  launch_id: string;
  chain_id: number;
  tx_hash: string;
  log_position: number;
  log_index: number;
  from_address: string;
  amount_units: string;
  block_number: number;
  block_hash: string;
  statement: string;
  signature: string;
  signer: string;
  created_at: number;
}

export interface SubscriptionRow {
  launch_id: string;
  chain: string;
  chain_id: number;
  payment_token: string;
  payment_token_decimals: number | null;
  price_units: string;
  period_secs: number;
  pay_to: string;
  created_at: number;
  updated_at: number;
}

// ---------------------------------------------------------------------------------------------
// launches

export function insertLaunch(ctx: Context, r: LaunchRow): void {
  ctx.db
    .query(
      `INSERT INTO launches (id, account_id, org_id, name, slug, custodian, decimals, interval_s, spec_canonical, digest, reveal_at, verdict_signer, status, created_at, updated_at, fee_paid_until)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`,
    )
    .run(r.id, r.account_id, r.org_id, r.name, r.slug, r.custodian, r.decimals, r.interval_s, r.spec_canonical, r.digest, r.reveal_at, r.verdict_signer, r.created_at, r.updated_at, r.fee_paid_until);
}

export const launchById = (ctx: Context, id: string): LaunchRow | null => ctx.db.query<LaunchRow, [string]>("SELECT * FROM launches WHERE id = ?").get(id);

export const launchBySlug = (ctx: Context, slug: string): LaunchRow | null => ctx.db.query<LaunchRow, [string]>("SELECT * FROM launches WHERE slug = ?").get(slug);

export const slugTaken = (ctx: Context, slug: string): boolean => ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM launches WHERE slug = ?").get(slug)!.n > 0;

/** The account's own launches and those of its orgs, newest first. */
export function launchesVisibleTo(ctx: Context, accountId: string, orgIds: string[], limit: number): LaunchRow[] {
  return ctx.db
    .query<LaunchRow, [string, string, number]>(
      `SELECT * FROM launches WHERE account_id = ?1 OR org_id IN (SELECT value FROM json_each(?2))
       ORDER BY created_at DESC, rowid DESC LIMIT ?3`,
    )
    .all(accountId, JSON.stringify(orgIds), limit);
}

export const publicLaunches = (ctx: Context, limit: number): LaunchRow[] =>
  ctx.db.query<LaunchRow, [number]>("SELECT * FROM launches ORDER BY created_at DESC, rowid DESC LIMIT ?").all(limit);

export function updateLaunchSettings(ctx: Context, id: string, s: { custodian: string; decimals: number; interval_s: number; now: number }): void {
  ctx.db.query("UPDATE launches SET custodian = ?, decimals = ?, interval_s = ?, updated_at = ? WHERE id = ?").run(s.custodian, s.decimals, s.interval_s, s.now, id);
}

/** Binds the token if none is bound yet; false when one already is (the race's loser). */
export function bindToken(ctx: Context, id: string, b: { chain: string; chain_id: number; token: string; now: number }): boolean {
  return ctx.db.query("UPDATE launches SET chain = ?, chain_id = ?, token = ?, bound_at = ?, updated_at = ? WHERE id = ? AND token IS NULL").run(b.chain, b.chain_id, b.token, b.now, b.now, id).changes === 1;
}

export function retireLaunch(ctx: Context, id: string, now: number): boolean {
  return ctx.db.query("UPDATE launches SET status = 'retired', retired_at = ?, updated_at = ? WHERE id = ? AND status = 'active'").run(now, now, id).changes === 1;
}

/** The next mint nonce (counted in the row, inside the caller's write transaction). */
export function takeMintNonce(ctx: Context, id: string): number {
  return ctx.db.query<{ mint_nonce: number }, [string]>("UPDATE launches SET mint_nonce = mint_nonce + 1 WHERE id = ? RETURNING mint_nonce").get(id)!.mint_nonce;
}

export function setFeePaidUntil(ctx: Context, id: string, until: number): void {
  ctx.db.query("UPDATE launches SET fee_paid_until = ? WHERE id = ?").run(until, id);
}

// ---------------------------------------------------------------------------------------------
// checks

export const latestCheck = (ctx: Context, launchId: string): CheckRow | null =>
  ctx.db.query<CheckRow, [string]>("SELECT * FROM launch_checks WHERE launch_id = ? ORDER BY seq DESC LIMIT 1").get(launchId);

export const checkBySeq = (ctx: Context, launchId: string, seq: number): CheckRow | null =>
  ctx.db.query<CheckRow, [string, number]>("SELECT * FROM launch_checks WHERE launch_id = ? AND seq = ?").get(launchId, seq);

/** Inserts the check with the next seq; inside the caller's write transaction. */
export function insertCheck(ctx: Context, row: Omit<CheckRow, "seq">): CheckRow {
  const seq = (ctx.db.query<{ s: number | null }, [string]>("SELECT max(seq) AS s FROM launch_checks WHERE launch_id = ?").get(row.launch_id)!.s ?? 0) + 1;
  const full: CheckRow = { ...row, seq };
  ctx.db
    .query(
      `INSERT INTO launch_checks (launch_id, seq, status, trigger, reserves_figure, reserves_units, supply_units, decimals, chain_id, token, block_number, evidence, reason, checked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(full.launch_id, seq, full.status, full.trigger, full.reserves_figure, full.reserves_units, full.supply_units, full.decimals, full.chain_id, full.token, full.block_number, full.evidence, full.reason, full.checked_at);
  return full;
}

// ---------------------------------------------------------------------------------------------
// actions

export const lastAction = (ctx: Context, launchId: string): ActionRow | null =>
  ctx.db.query<ActionRow, [string]>("SELECT * FROM launch_actions WHERE launch_id = ? ORDER BY seq DESC LIMIT 1").get(launchId);

export function insertAction(ctx: Context, row: ActionRow): void {
  ctx.db
    .query("INSERT INTO launch_actions (launch_id, seq, kind, data, created_at, prev_hash, entry_hash) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(row.launch_id, row.seq, row.kind, row.data, row.created_at, row.prev_hash, row.entry_hash);
}

/** Newest first, below `beforeSeq` when given. */
export function actionsPage(ctx: Context, launchId: string, beforeSeq: number | null, limit: number): ActionRow[] {
  return ctx.db
    .query<ActionRow, [string, number, number]>("SELECT * FROM launch_actions WHERE launch_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")
    .all(launchId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit);
}

// ---------------------------------------------------------------------------------------------
// mint authorizations

export function insertMintAuthorization(ctx: Context, r: MintAuthorizationRow): void {
  ctx.db
    .query(
      `INSERT INTO launch_mint_authorizations (id, launch_id, nonce, to_address, amount_units, deadline, check_seq, digest, signature, signer, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(r.id, r.launch_id, r.nonce, r.to_address, r.amount_units, r.deadline, r.check_seq, r.digest, r.signature, r.signer, r.created_at);
}

/** Base units of the authorizations still valid at `now` (they may yet be minted). */
export function outstandingAuthorized(ctx: Context, launchId: string, now: number): bigint {
  const rows = ctx.db.query<{ amount_units: string }, [string, number]>("SELECT amount_units FROM launch_mint_authorizations WHERE launch_id = ? AND deadline > ?").all(launchId, now);
  return rows.reduce((sum, r) => sum + BigInt(r.amount_units), 0n);
}

// ---------------------------------------------------------------------------------------------
// redemptions

export const redemptionOfLog = (ctx: Context, chainId: number, txHash: string, position: number): RedemptionRow | null =>
  ctx.db.query<RedemptionRow, [number, string, number]>("SELECT * FROM launch_redemptions WHERE chain_id = ? AND tx_hash = ? AND log_position = ?").get(chainId, txHash, position);

export function insertRedemption(ctx: Context, r: RedemptionRow): void {
  ctx.db
    .query(
      `INSERT INTO launch_redemptions (id, launch_id, chain_id, tx_hash, log_position, log_index, from_address, amount_units, block_number, block_hash, statement, signature, signer, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(r.id, r.launch_id, r.chain_id, r.tx_hash, r.log_position, r.log_index, r.from_address, r.amount_units, r.block_number, r.block_hash, r.statement, r.signature, r.signer, r.created_at);
}

export const redemptionsOf = (ctx: Context, launchId: string, limit: number): RedemptionRow[] =>
  ctx.db.query<RedemptionRow, [string, number]>("SELECT * FROM launch_redemptions WHERE launch_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?").all(launchId, limit);

// ---------------------------------------------------------------------------------------------
// check payments

export const checkPaymentUsed = (ctx: Context, chainId: number, txHash: string, position: number): boolean =>
  ctx.db.query<{ n: number }, [number, string, number]>("SELECT count(*) AS n FROM launch_check_payments WHERE chain_id = ? AND tx_hash = ? AND log_position = ?").get(chainId, txHash, position)!.n > 0;

/** Records the transfer as spent; false when it already was (the race's loser). */
export function spendCheckPayment(ctx: Context, p: { chain_id: number; tx_hash: string; log_position: number; launch_id: string; payer: string; amount_units: string; created_at: number }): boolean {
  return (
    ctx.db
      .query("INSERT OR IGNORE INTO launch_check_payments (chain_id, tx_hash, log_position, launch_id, payer, amount_units, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(p.chain_id, p.tx_hash, p.log_position, p.launch_id, p.payer, p.amount_units, p.created_at).changes === 1
  );
}

// ---------------------------------------------------------------------------------------------
// subscriptions

export const subscriptionOf = (ctx: Context, launchId: string): SubscriptionRow | null =>
  ctx.db.query<SubscriptionRow, [string]>("SELECT * FROM launch_subscriptions WHERE launch_id = ?").get(launchId);

export function upsertSubscription(ctx: Context, r: SubscriptionRow): void {
  ctx.db
    .query(
      `INSERT INTO launch_subscriptions (launch_id, chain, chain_id, payment_token, payment_token_decimals, price_units, period_secs, pay_to, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (launch_id) DO UPDATE SET chain = excluded.chain, chain_id = excluded.chain_id, payment_token = excluded.payment_token,
         payment_token_decimals = excluded.payment_token_decimals, price_units = excluded.price_units, period_secs = excluded.period_secs,
         pay_to = excluded.pay_to, updated_at = excluded.updated_at`,
    )
    .run(r.launch_id, r.chain, r.chain_id, r.payment_token, r.payment_token_decimals, r.price_units, r.period_secs, r.pay_to, r.created_at, r.updated_at);
}

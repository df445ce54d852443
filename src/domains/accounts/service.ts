/**
 * Accounts: the tenant every key, session and ledger entry belongs to. Sign-in creates them
 * (auth domain); operators suspend them (admin domain). A suspended account keeps its data and
 * credit, but every key and session of it is refused until it is unsuspended.
 */
import type { Actor } from "../../core/audit.ts";
import { isoTime } from "../../core/clock.ts";
import { invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";

interface AccountRow {
  id: string;
  created_at: number;
  balance_micro_usd: number;
  held_micro_usd: number;
  suspended_at: number | null;
  suspended_reason: string | null;
}

export interface AccountView {
  id: string;
  created_at: string;
  suspended: boolean;
  suspended_at: string | null;
  suspended_reason: string | null;
  balance_micro_usd: number;
  held_micro_usd: number;
  spendable_micro_usd: number;
}

const view = (r: AccountRow): AccountView => ({
  id: r.id,
  created_at: isoTime(r.created_at),
  suspended: r.suspended_at !== null,
  suspended_at: r.suspended_at === null ? null : isoTime(r.suspended_at),
  suspended_reason: r.suspended_reason,
  balance_micro_usd: r.balance_micro_usd,
  held_micro_usd: r.held_micro_usd,
  spendable_micro_usd: r.balance_micro_usd - r.held_micro_usd,
});

export function createAccount(ctx: Context): AccountView {
  const row = ctx.db.query<AccountRow, [string, number]>("INSERT INTO accounts (id, created_at) VALUES (?, ?) RETURNING *").get(newId("acct"), ctx.clock.now())!;
  return view(row);
}

export function getAccount(ctx: Context, id: string): AccountView {
  const row = ctx.db.query<AccountRow, [string]>("SELECT * FROM accounts WHERE id = ?").get(id);
  if (!row) throw notFound("account");
  return view(row);
}

/** True when the account exists and is suspended (checked on every authenticated request). */
export function isSuspended(ctx: Context, id: string): boolean {
  // On every authenticated request: from the read cache, which the accounts' suspension trigger keeps current (migration 0053).
  return ctx.reads.get("accounts.suspended", id, () => ctx.db.query<{ s: number | null }, [string]>("SELECT suspended_at AS s FROM accounts WHERE id = ?").get(id)?.s != null);
}

export interface SuspendInput {
  accountId: string;
  suspended: boolean;
  reason?: string | null;
  actor: Actor;
}

/** Suspends or lifts a suspension. Idempotent: suspending a suspended account keeps its first timestamp and updates the reason. */
export function setSuspended(ctx: Context, input: SuspendInput): AccountView {
  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    const row = input.suspended
      ? ctx.db
          .query<AccountRow, [number, string | null, string]>(
            "UPDATE accounts SET suspended_at = coalesce(suspended_at, ?), suspended_reason = ? WHERE id = ? RETURNING *",
          )
          .get(now, input.reason ?? null, input.accountId)
      : ctx.db.query<AccountRow, [string]>("UPDATE accounts SET suspended_at = NULL, suspended_reason = NULL WHERE id = ? RETURNING *").get(input.accountId);
    if (!row) throw notFound("account");
    ctx.audit.record(input.actor, input.suspended ? "account.suspend" : "account.unsuspend", input.accountId, input.reason ? { reason: input.reason } : {});
    return view(row);
  });
}

export function listAccounts(ctx: Context, limit = 100): AccountView[] {
  return ctx.db.query<AccountRow, [number]>("SELECT * FROM accounts ORDER BY created_at DESC, id LIMIT ?").all(limit).map(view);
}

export interface AccountPageQuery {
  limit: number;
  /** An account id of the previous page: the accounts after it in this order. Unknown: 400 naming query.after. */
  afterId?: string;
  /** Only accounts whose id starts with this (compared lower-case: ids are). */
  idPrefix?: string;
  /** Only these accounts (a wallet lookup's result). */
  ids?: readonly string[];
}

/**
 * Accounts newest first (created_at, then id, so the order is total and survives VACUUM),
 * keyset-paged from an account id: accounts created while an operator pages come before
 * their first page and never shift it.
 */
export function accountsPage(ctx: Context, q: AccountPageQuery): AccountView[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (q.afterId !== undefined) {
    const after = ctx.db.query<{ created_at: number }, [string]>("SELECT created_at FROM accounts WHERE id = ?").get(q.afterId);
    if (!after) throw invalidField("query.after", "names no account");
    where.push("(created_at < ? OR (created_at = ? AND id > ?))");
    args.push(after.created_at, after.created_at, q.afterId);
  }
  if (q.idPrefix !== undefined) {
    // substr, not LIKE: "_" is in every id and is a LIKE wildcard.
    where.push("substr(id, 1, ?) = ?");
    args.push(q.idPrefix.length, q.idPrefix.toLowerCase());
  }
  if (q.ids !== undefined) {
    where.push("id IN (SELECT value FROM json_each(?))");
    args.push(JSON.stringify(q.ids));
  }
  args.push(q.limit);
  return ctx.db
    .query<AccountRow, (string | number)[]>(`SELECT * FROM accounts ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id LIMIT ?`)
    .all(...args)
    .map(view);
}

/** How many accounts there are, and how many of them are suspended. */
export function accountCounts(ctx: Context): { total: number; suspended: number } {
  const r = ctx.db.query<{ total: number; suspended: number | null }, []>("SELECT count(*) AS total, sum(suspended_at IS NOT NULL) AS suspended FROM accounts").get()!;
  return { total: r.total, suspended: r.suspended ?? 0 };
}

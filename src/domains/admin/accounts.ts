/**
 * The operator's view of accounts (GET /v1/admin/accounts, GET /v1/admin/accounts/:id): each
 * account with its wallets, its credit and what it spent this month, gathered from the areas
 * that own each part (accounts, auth's wallets, the ledger, keys, billing's entries).
 *
 * Search: `q` starting with 0x is a wallet (a full address, or the start of one); anything else
 * is the start of an account id. Both are case-insensitive. Pages are newest first and continue
 * from an account id (`after`), like GET /v1/batches.
 */
import { parseLimit } from "../../core/envelopes.ts";
import { invalidField } from "../../core/errors.ts";
import { monthOf } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import { type AccountView, accountsPage, getAccount } from "../accounts/index.ts";
import { findAccountByWallet, listWallets, walletAddressesOf } from "../auth/index.ts";
import { adjustCredit, entryView, type EntryView, recentEntries } from "../billing/index.ts";
import { keyCountsOf } from "../keys/index.ts";

export const ACCOUNT_LIMIT = { min: 1, max: 200, default: 50 };
export const RECENT_ENTRIES = 20;
/** Accounts read per step while looking for a wallet prefix (see walletPrefixPage). */
const SCAN_CHUNK = 500;

const WALLET_QUERY = /^0x[0-9a-f]{0,40}$/;
const FULL_ADDRESS = /^0x[0-9a-f]{40}$/;

export interface AdminAccount {
  id: string;
  created_at: string;
  suspended: boolean;
  suspended_at: string | null;
  suspended_reason: string | null;
  /** EIP-55 checksummed, in the order they were linked. */
  wallets: string[];
  balance_micro_usd: number;
  held_micro_usd: number;
  spendable_micro_usd: number;
  /** Debit entries since the start of this UTC month. */
  spent_this_month_micro_usd: number;
}

export interface AdminAccountDetail extends AdminAccount {
  month: string;
  keys: { total: number; active: number };
  recent_entries: EntryView[];
}

export interface AdminAccountPage {
  object: "list";
  data: AdminAccount[];
  has_more: boolean;
}

const monthStart = (now: number): number => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

function rows(ctx: Context, accounts: AccountView[]): AdminAccount[] {
  const spent = ctx.ledger.debitedSince(
    accounts.map((a) => a.id),
    monthStart(ctx.clock.now()),
  );
  return accounts.map((a) => ({
    id: a.id,
    created_at: a.created_at,
    suspended: a.suspended,
    suspended_at: a.suspended_at,
    suspended_reason: a.suspended_reason,
    wallets: listWallets(ctx, a.id).map((w) => w.address),
    balance_micro_usd: a.balance_micro_usd,
    held_micro_usd: a.held_micro_usd,
    spendable_micro_usd: a.spendable_micro_usd,
    spent_this_month_micro_usd: spent.get(a.id) ?? 0,
  }));
}

/**
 * Accounts whose wallet starts with `prefix`, newest first. Wallets belong to auth, whose front
 * door looks a wallet up by its full address only, so a partial address is matched by walking
 * the accounts in page order and reading each one's wallets: one indexed read per account, until
 * the page is full or the accounts run out. An operator's search, not a hot path.
 */
function walletPrefixPage(ctx: Context, prefix: string, limit: number, afterId: string | undefined): AccountView[] {
  const found: AccountView[] = [];
  let after = afterId;
  for (;;) {
    const chunk = accountsPage(ctx, { limit: SCAN_CHUNK, afterId: after });
    for (const a of chunk) {
      if (walletAddressesOf(ctx, a.id).some((w) => w.startsWith(prefix))) found.push(a);
      if (found.length === limit) return found;
    }
    if (chunk.length < SCAN_CHUNK) return found;
    after = chunk.at(-1)!.id;
  }
}

export function searchAccounts(ctx: Context, query: { q?: string; limit?: string; after?: string }): AdminAccountPage {
  const limit = parseLimit(query.limit, ACCOUNT_LIMIT);
  const q = query.q?.trim().toLowerCase() ?? "";
  const after = query.after === "" ? undefined : query.after;
  // One more than the page, to know whether another follows.
  const want = limit + 1;
  let found: AccountView[];
  if (q === "") found = accountsPage(ctx, { limit: want, afterId: after });
  else if (q.startsWith("0x")) {
    if (!WALLET_QUERY.test(q)) throw invalidField("query.q", "a wallet search is 0x and up to 40 hex digits");
    if (FULL_ADDRESS.test(q)) {
      const id = findAccountByWallet(ctx, q);
      found = id ? accountsPage(ctx, { limit: want, afterId: after, ids: [id] }) : [];
    } else found = walletPrefixPage(ctx, q, want, after);
  } else found = accountsPage(ctx, { limit: want, afterId: after, idPrefix: q });
  return { object: "list", data: rows(ctx, found.slice(0, limit)), has_more: found.length > limit };
}

/** One account: the list's fields, its keys and its latest ledger entries. 404 for an unknown id. */
export function accountDetail(ctx: Context, accountId: string): AdminAccountDetail {
  const [row] = rows(ctx, [getAccount(ctx, accountId)]);
  return {
    ...row!,
    month: monthOf(ctx.clock.now()),
    keys: keyCountsOf(ctx, accountId),
    recent_entries: recentEntries(ctx, accountId, RECENT_ENTRIES),
  };
}

export interface CreditAdjustment {
  entry: EntryView;
  balance: { balance_micro_usd: number; held_micro_usd: number; spendable_micro_usd: number };
}

/**
 * POST /v1/admin/accounts/:id/credit: billing's adjustCredit (its rules: a reason, a positive
 * amount, never below spendable) as actor admin_api. The balance is the entry's own "after"
 * figures, written in the adjustment's transaction, so a request settling meanwhile cannot
 * make the answer disagree with the entry.
 */
export function adjustAccountCredit(ctx: Context, accountId: string, input: { amount: number; direction: "grant" | "debit"; reason: string }): CreditAdjustment {
  const entry = adjustCredit(ctx, "admin_api", { accountId, ...input });
  return {
    entry: entryView(entry),
    balance: {
      balance_micro_usd: entry.balance_after_micro_usd,
      held_micro_usd: entry.held_after_micro_usd,
      spendable_micro_usd: entry.balance_after_micro_usd - entry.held_after_micro_usd,
    },
  };
}

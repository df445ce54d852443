/**
 * Wallets: the Ethereum addresses an account signs in with. An account has one or more; a
 * wallet belongs to at most one account. Stored lowercase, compared case-insensitively,
 * shown EIP-55 checksummed.
 */
import { isoTime } from "../../core/clock.ts";
import { conflict, invalidField, notFound } from "../../core/errors.ts";
import { isAddress, toChecksumAddress } from "../../core/eip191.ts";
import type { Context } from "../../context.ts";

interface Row {
  address: string;
  account_id: string;
  created_at: number;
}

export interface WalletView {
  address: string;
  created_at: string;
}

const view = (r: Row): WalletView => ({ address: toChecksumAddress(r.address), created_at: isoTime(r.created_at) });

/** Lowercase form of a 0x address, or 400 naming `field`. */
export function normalizeAddress(value: string, field = "address"): string {
  if (!isAddress(value)) throw invalidField(field, "must be a 0x-prefixed 20-byte hex address");
  return value.toLowerCase();
}

/** The account a wallet belongs to, or null. */
export function findAccountByWallet(ctx: Context, address: string): string | null {
  return ctx.db.query<{ account_id: string }, [string]>("SELECT account_id FROM wallets WHERE address = ?").get(address.toLowerCase())?.account_id ?? null;
}

/** The account's wallet addresses, lowercase, in the order they were linked. */
export function walletAddressesOf(ctx: Context, accountId: string): string[] {
  return ctx.db.query<{ address: string }, [string]>("SELECT address FROM wallets WHERE account_id = ? ORDER BY created_at, rowid").all(accountId).map((r) => r.address);
}

export function listWallets(ctx: Context, accountId: string): WalletView[] {
  return ctx.db.query<Row, [string]>("SELECT * FROM wallets WHERE account_id = ? ORDER BY created_at, rowid").all(accountId).map(view);
}

/** Adds a wallet to an account. Idempotent for the same account; 409 when another account holds it. */
export function addWallet(ctx: Context, accountId: string, address: string): { wallet: WalletView; added: boolean } {
  const lower = normalizeAddress(address);
  return ctx.tx.run(() => {
    const owner = findAccountByWallet(ctx, lower);
    if (owner && owner !== accountId) throw conflict("wallet_taken", "this wallet is already linked to another account; unlink it there first");
    if (owner === accountId) {
      return { wallet: view(ctx.db.query<Row, [string]>("SELECT * FROM wallets WHERE address = ?").get(lower)!), added: false };
    }
    const row = ctx.db.query<Row, [string, string, number]>("INSERT INTO wallets (address, account_id, created_at) VALUES (?, ?, ?) RETURNING *").get(lower, accountId, ctx.clock.now())!;
    return { wallet: view(row), added: true };
  });
}

/** Unlinks a wallet; the last one cannot go (the account could no longer sign in with SIWE). */
export function removeWallet(ctx: Context, accountId: string, address: string): void {
  const lower = normalizeAddress(address);
  ctx.tx.run(() => {
    if (findAccountByWallet(ctx, lower) !== accountId) throw notFound("wallet");
    const n = ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM wallets WHERE account_id = ?").get(accountId)!.n;
    if (n <= 1) throw conflict("last_wallet", "this is the account's only wallet; link another before removing it");
    ctx.db.query("DELETE FROM wallets WHERE address = ?").run(lower);
  });
}

/** The wallet an account shows as its identity: the first one linked. */
export function primaryWallet(ctx: Context, accountId: string): string | null {
  const row = ctx.db.query<{ address: string }, [string]>("SELECT address FROM wallets WHERE account_id = ? ORDER BY created_at, rowid LIMIT 1").get(accountId);
  return row ? toChecksumAddress(row.address) : null;
}

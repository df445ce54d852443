/**
 * Signing in and linking wallets with SIWE. A wallet's first sign-in creates its account;
 * later sign-ins land in the account the wallet belongs to. A suspended account cannot
 * sign in.
 */
import { accountSuspended } from "../../core/auth.ts";
import type { Context } from "../../context.ts";
import { createAccount, isSuspended } from "../accounts/index.ts";
import { issueSession, type IssuedSession } from "./sessions.ts";
import { verifySiwe } from "./siwe.ts";
import { addWallet, findAccountByWallet, type WalletView } from "./wallets.ts";

export interface ClientInfo {
  userAgent: string | null;
  ip: string | null;
}

/** The account a wallet belongs to, created (with the wallet linked) on the wallet's first use. */
export function accountForWallet(ctx: Context, address: string): { accountId: string; created: boolean } {
  return ctx.tx.run(() => {
    const existing = findAccountByWallet(ctx, address);
    if (existing) return { accountId: existing, created: false };
    const accountId = createAccount(ctx).id;
    addWallet(ctx, accountId, address);
    return { accountId, created: true };
  });
}

export function signInWithEthereum(ctx: Context, input: { message: string; signature: string }, client: ClientInfo): { issued: IssuedSession; accountCreated: boolean } {
  const { address } = verifySiwe(ctx, input);
  return ctx.tx.run(() => {
    const { accountId, created } = accountForWallet(ctx, address);
    if (isSuspended(ctx, accountId)) throw accountSuspended();
    const issued = issueSession(ctx, { accountId, method: "siwe", walletAddress: address, userAgent: client.userAgent, ip: client.ip });
    return { issued, accountCreated: created };
  });
}

/** The statement a wallet-linking message must carry: the wallet's owner sees which account it joins. */
export const linkStatement = (accountId: string): string => `Link this wallet to svc account ${accountId}`;

/** Links another wallet to the signed-in account, proven by a SIWE signature from that wallet. */
export function linkWallet(ctx: Context, accountId: string, input: { message: string; signature: string }): { wallet: WalletView; added: boolean } {
  const { address } = verifySiwe(ctx, input, { statementMustInclude: linkStatement(accountId) });
  return addWallet(ctx, accountId, address);
}

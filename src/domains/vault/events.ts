/**
 * Who hears of a vault change (spec §6: vault_transfer_sent/received, vault_distribution,
 * vault_attestation; amount-free). Holders are registry entries, not accounts, so the issuer
 * (the asset's account) receives every event; a holder whose bound wallet (claims.ts) is linked
 * to an svc account receives the events of its own position as well. Payloads name the asset,
 * the record and the holders by id, never an amount, a name or a text.
 */
import type { Context } from "../../context.ts";
import { findAccountByWallet } from "../auth/index.ts";

export type VaultEvent = "vault_transfer_sent" | "vault_transfer_received" | "vault_distribution" | "vault_attestation";

/** Emits `type` to the issuer and to the accounts of the given holder wallets (each once). Inside the change's transaction. */
export function notify(ctx: Context, type: VaultEvent, issuerId: string, holderWallets: (string | null)[], payload: Record<string, unknown>): void {
  const accounts = new Set([issuerId]);
  for (const wallet of holderWallets) {
    const account = wallet ? findAccountByWallet(ctx, wallet) : null;
    if (account) accounts.add(account);
  }
  for (const account of accounts) ctx.outbox.emit(type, account, payload);
}

/**
 * Claims: how a holder binds a wallet to its position. The issuer creates a claim for a holder
 * and hands the holder its token (vclaim_…, shown once, stored as sha256); the holder opens
 * GET /v1/vault/claims/:token (the asset's name and the claim's message, never an amount),
 * signs the message with the wallet (EIP-191 personal_sign) and POSTs {wallet, signature} to
 * the same path. svc binds the wallet when the signature recovers to it. The message names the
 * claim by id, not by token, so a signed message can be shown or logged without handing out the
 * bearer token; a token binds once (409 already_bound after). A new claim for the same holder
 * supersedes the open one. A wallet is bound to at most one holder of an asset.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { recoverMessageAddress, toChecksumAddress } from "../../core/eip191.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { findAsset, ownAsset } from "./assets.ts";
import { appendEntry } from "./chain.ts";
import { holderOf } from "./holders.ts";
import { CLAIM_TTL } from "./limits.ts";

interface ClaimRow {
  id: string;
  asset_id: string;
  account_id: string;
  holder_id: string;
  token_hash: string;
  status: "open" | "bound" | "superseded";
  wallet: string | null;
  expires_at: number;
  bound_at: number | null;
  created_at: number;
}

type ClaimStatus = "open" | "bound" | "superseded" | "expired";

/** What the holder signs with the wallet to bind. */
export const claimMessage = (c: Pick<ClaimRow, "id" | "asset_id" | "holder_id">): string =>
  `svc vault claim ${c.id}\nBind this wallet to holder ${c.holder_id} of asset ${c.asset_id}.`;

const statusOf = (c: ClaimRow, now: number): ClaimStatus => (c.status === "open" && c.expires_at <= now ? "expired" : c.status);

const claimView = (c: ClaimRow, now: number) => ({
  id: c.id,
  asset_id: c.asset_id,
  holder_id: c.holder_id,
  status: statusOf(c, now),
  wallet: c.wallet && toChecksumAddress(c.wallet),
  message: claimMessage(c),
  expires_at: isoTime(c.expires_at),
  bound_at: c.bound_at === null ? null : isoTime(c.bound_at),
  created_at: isoTime(c.created_at),
});

export type ClaimView = ReturnType<typeof claimView>;

const alreadyBound = () => new ApiError(409, "already_bound", "this holder has already bound a wallet; a claim binds once");

export function createClaim(ctx: Context, accountId: string, assetId: string, holderId: string, input: { expiresInSecs: number | null }): ClaimView & { token: string } {
  const token = newSecret("vclaim");
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    const holder = holderOf(ctx, asset, holderId);
    if (holder.wallet !== null) throw alreadyBound();
    ctx.db.query("UPDATE vault_claims SET status = 'superseded' WHERE holder_id = ? AND status = 'open'").run(holder.id);
    const id = newId("vcl");
    appendEntry(ctx, asset.id, "claim_created", { claim_id: id, holder_id: holder.id });
    const row = ctx.db
      .query<ClaimRow, (string | number)[]>(
        "INSERT INTO vault_claims (id, asset_id, account_id, holder_id, token_hash, status, expires_at, created_at) VALUES (?, ?, ?, ?, ?, 'open', ?, ?) RETURNING *",
      )
      .get(id, asset.id, accountId, holder.id, sha256Hex(token), now + (input.expiresInSecs ?? CLAIM_TTL.default) * 1000, now)!;
    return { ...claimView(row, now), token };
  });
}

/** Spec §2.1 {claims}: every claim of the account's assets, newest first, not capped (§8). */
export function listClaims(ctx: Context, accountId: string): ClaimView[] {
  const now = ctx.clock.now();
  return ctx.db
    .query<ClaimRow, [string]>("SELECT * FROM vault_claims WHERE account_id = ? ORDER BY created_at DESC, rowid DESC")
    .all(accountId)
    .map((c) => claimView(c, now));
}

function claimByToken(ctx: Context, token: string): ClaimRow {
  const row = ctx.db.query<ClaimRow, [string]>("SELECT * FROM vault_claims WHERE token_hash = ?").get(sha256Hex(token));
  if (!row) throw notFound("vault claim");
  return row;
}

/** What the token's bearer sees: the asset's name, the claim's state and the bound wallet; never an amount. */
function publicView(ctx: Context, c: ClaimRow) {
  const now = ctx.clock.now();
  return {
    asset_name: findAsset(ctx, c.asset_id)!.name,
    status: statusOf(c, now),
    wallet: c.wallet && toChecksumAddress(c.wallet),
    message: claimMessage(c),
    expires_at: isoTime(c.expires_at),
    bound_at: c.bound_at === null ? null : isoTime(c.bound_at),
  };
}

export type PublicClaimView = ReturnType<typeof publicView>;

export const claimByTokenView = (ctx: Context, token: string): PublicClaimView => publicView(ctx, claimByToken(ctx, token));

/** Binds the wallet whose signature over the claim's message recovers to `wallet`. */
export function bindClaim(ctx: Context, token: string, input: { wallet: string; signature: string }): PublicClaimView {
  return ctx.tx.run(() => {
    const claim = claimByToken(ctx, token);
    const status = statusOf(claim, ctx.clock.now());
    if (status === "bound") throw alreadyBound();
    if (status === "superseded") throw new ApiError(409, "claim_superseded", "a newer claim was made for this holder; ask the issuer for its link");
    if (status === "expired") throw new ApiError(409, "claim_expired", "this claim has expired; ask the issuer for a new one");
    const wallet = input.wallet.toLowerCase();
    let signer: string;
    try {
      signer = recoverMessageAddress(claimMessage(claim), input.signature).toLowerCase();
    } catch (err) {
      throw invalidField("signature", `cannot be recovered (${err instanceof Error ? err.message : String(err)})`);
    }
    if (signer !== wallet) throw invalidField("signature", `recovers to ${toChecksumAddress(signer)}, not wallet; sign the claim's message with the wallet being bound`);
    if (ctx.db.query("SELECT 1 FROM vault_holders WHERE asset_id = ? AND wallet = ?").get(claim.asset_id, wallet)) {
      throw new ApiError(409, "wallet_taken", "wallet: this wallet is already bound to another holder of the asset", { param: "wallet" });
    }
    const now = ctx.clock.now();
    ctx.db.query("UPDATE vault_claims SET status = 'bound', wallet = ?, bound_at = ? WHERE id = ?").run(wallet, now, claim.id);
    ctx.db.query("UPDATE vault_holders SET wallet = ?, claimed_at = ?, updated_at = ? WHERE id = ?").run(wallet, now, now, claim.holder_id);
    appendEntry(ctx, claim.asset_id, "claim_bound", { claim_id: claim.id, holder_id: claim.holder_id });
    return publicView(ctx, ctx.db.query<ClaimRow, [string]>("SELECT * FROM vault_claims WHERE id = ?").get(claim.id)!);
  });
}

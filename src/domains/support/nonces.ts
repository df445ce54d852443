/**
 * POST /v1/support/nonce (docs/support.md "The message"): a single-use code and the exact text
 * both wallets of a claim sign. The text says what signing does (registers the pair; moves
 * nothing), names the deployment and carries the nonce and its expiry, so a signature made for
 * one claim on one deployment cannot be replayed as another.
 */
import { randomBytes } from "node:crypto";
import { isoTime } from "../../core/clock.ts";
import { notImplemented } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { insertNonce } from "./store.ts";

/** A deployment with no chain cannot check the claim's transaction, so it takes no claims. */
export function requireChains(ctx: Context): void {
  if (!ctx.config.chains.length) throw notImplemented("the support program (the operator has configured no chain to check a claim's transaction on)");
}

export function supportMessage(publicUrl: string, nonce: string, issuedAt: number, expiresAt: number): string {
  return [
    "svc support program: claim",
    "",
    "I control both wallets that sign this message, an ed25519 key and an EVM address, and register them together as one support claim. Signing moves no funds.",
    "",
    `URI: ${publicUrl}`,
    `Nonce: ${nonce}`,
    `Issued At: ${isoTime(issuedAt)}`,
    `Expiration Time: ${isoTime(expiresAt)}`,
  ].join("\n");
}

export function mintNonce(ctx: Context) {
  requireChains(ctx);
  const nonce = randomBytes(16).toString("hex");
  const now = ctx.clock.now();
  const expiresAt = now + ctx.config.support.nonce_ttl_secs * 1000;
  const message = supportMessage(ctx.config.public_url, nonce, now, expiresAt);
  ctx.tx.run(() => insertNonce(ctx, { nonce, message, created_at: now, expires_at: expiresAt }));
  return { nonce, message, issued_at: isoTime(now), expires_at: isoTime(expiresAt) };
}

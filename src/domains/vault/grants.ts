/**
 * View grants: read-only tokens an issuer hands to an investor, an auditor or a regulator to see
 * one asset without an svc account. A grant names its scopes (limits.ts VIEW_SCOPES):
 *
 *   positions     holders by name and their positions (never emails)
 *   activity      issues, transfers and distributions
 *   attestations  the attesters' signed statements
 *   documents     document metadata, and their bytes at /v1/vault/view/:token/documents/:doc_id
 *
 * The token (vview_…) is shown once, at creation; svc keeps its sha256 only. A grant expires
 * (expires_in_secs) and can be revoked; an unknown, expired or revoked token answers 404, all
 * alike. A live token that lacks the documents scope answers 403 insufficient_scope on a
 * document: its bearer already knows the grant exists, so the refusal says what is missing.
 */
import { isoTime } from "../../core/clock.ts";
import { forbidden, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, secretPrefix, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { type AssetRow, findAsset, ownAsset } from "./assets.ts";
import { attestationsOf } from "./attestations.ts";
import { appendEntry } from "./chain.ts";
import { listDistributions } from "./distributions.ts";
import { documentContent, documentsOf } from "./documents.ts";
import { type HolderRow } from "./holders.ts";
import { GRANT_TTL, type VIEW_SCOPES } from "./limits.ts";
import { listMovements } from "./movements.ts";

export type ViewScope = (typeof VIEW_SCOPES)[number];

interface GrantRow {
  id: string;
  asset_id: string;
  account_id: string;
  token_hash: string;
  token_prefix: string;
  label: string | null;
  scopes: string;
  expires_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

const statusOf = (g: GrantRow, now: number) => (g.revoked_at !== null ? "revoked" : g.expires_at <= now ? "expired" : "active");

const grantView = (g: GrantRow, now: number) => ({
  id: g.id,
  asset_id: g.asset_id,
  label: g.label,
  scopes: JSON.parse(g.scopes) as ViewScope[],
  token_prefix: g.token_prefix,
  status: statusOf(g, now) as "active" | "expired" | "revoked",
  expires_at: isoTime(g.expires_at),
  revoked_at: g.revoked_at === null ? null : isoTime(g.revoked_at),
  last_used_at: g.last_used_at === null ? null : isoTime(g.last_used_at),
  created_at: isoTime(g.created_at),
});

export type GrantView = ReturnType<typeof grantView>;

export function createGrant(
  ctx: Context,
  accountId: string,
  assetId: string,
  input: { scopes: ViewScope[]; label: string | null; expiresInSecs: number | null },
): GrantView & { token: string } {
  const token = newSecret("vview");
  const now = ctx.clock.now();
  const scopes = [...new Set(input.scopes)];
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    const id = newId("vgr");
    appendEntry(ctx, asset.id, "grant_created", { grant_id: id });
    const row = ctx.db
      .query<GrantRow, (string | number | null)[]>(
        "INSERT INTO vault_grants (id, asset_id, account_id, token_hash, token_prefix, label, scopes, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
      )
      .get(id, asset.id, accountId, sha256Hex(token), secretPrefix(token), input.label, JSON.stringify(scopes), now + (input.expiresInSecs ?? GRANT_TTL.default) * 1000, now)!;
    return { ...grantView(row, now), token };
  });
}

/** Spec §2.1 {grants}: every grant of the asset (active, expired, revoked), oldest first, not capped (§8). */
export function listGrants(ctx: Context, accountId: string, assetId: string): GrantView[] {
  const asset = ownAsset(ctx, accountId, assetId);
  const now = ctx.clock.now();
  return ctx.db
    .query<GrantRow, [string]>("SELECT * FROM vault_grants WHERE asset_id = ? ORDER BY created_at, rowid")
    .all(asset.id)
    .map((g) => grantView(g, now));
}

/** Revokes a grant at once. Idempotent: revoking again answers the same record and appends nothing. */
export function revokeGrant(ctx: Context, accountId: string, assetId: string, grantId: string): GrantView {
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    const row = ctx.db.query<GrantRow, [string, string]>("SELECT * FROM vault_grants WHERE id = ? AND asset_id = ?").get(grantId, asset.id);
    if (!row) throw notFound("vault view grant");
    const now = ctx.clock.now();
    if (row.revoked_at === null) {
      ctx.db.query("UPDATE vault_grants SET revoked_at = ? WHERE id = ?").run(now, row.id);
      appendEntry(ctx, asset.id, "grant_revoked", { grant_id: row.id });
    }
    return grantView(ctx.db.query<GrantRow, [string]>("SELECT * FROM vault_grants WHERE id = ?").get(row.id)!, now);
  });
}

/** The live grant a token opens, and its asset; 404 for an unknown, expired or revoked token alike. */
function liveGrant(ctx: Context, token: string): { grant: GrantRow; asset: AssetRow; scopes: ViewScope[] } {
  const grant = ctx.db.query<GrantRow, [string]>("SELECT * FROM vault_grants WHERE token_hash = ?").get(sha256Hex(token));
  const now = ctx.clock.now();
  if (!grant || statusOf(grant, now) !== "active") throw notFound("vault view");
  ctx.db.query("UPDATE vault_grants SET last_used_at = ? WHERE id = ?").run(now, grant.id);
  return { grant, asset: findAsset(ctx, grant.asset_id)!, scopes: JSON.parse(grant.scopes) as ViewScope[] };
}

/** GET /v1/vault/view/:token: the asset and what the grant's scopes open; a section outside them is null. */
export function viewAsset(ctx: Context, token: string) {
  const { grant, asset, scopes } = liveGrant(ctx, token);
  const has = (s: ViewScope) => scopes.includes(s);
  const holders = has("positions")
    ? ctx.db
        .query<HolderRow, [string]>("SELECT * FROM vault_holders WHERE asset_id = ? ORDER BY created_at, rowid")
        .all(asset.id)
        .map((h) => ({ id: h.id, name: h.name, position_micro_usd: h.position_micro_usd, claimed: h.wallet !== null }))
    : null;
  return {
    asset: {
      id: asset.id,
      name: asset.name,
      symbol: asset.symbol,
      description: asset.description,
      total_micro_usd: asset.total_micro_usd,
      issued_micro_usd: asset.issued_micro_usd,
    },
    scopes,
    expires_at: isoTime(grant.expires_at),
    chain_head: { seq: asset.chain_seq, hash: asset.chain_head },
    holders,
    transfers: has("activity") ? listMovements(ctx, asset.account_id, asset.id) : null,
    distributions: has("activity") ? listDistributions(ctx, asset.account_id, asset.id) : null,
    attestations: has("attestations") ? attestationsOf(ctx, asset) : null,
    documents: has("documents") ? documentsOf(ctx, asset) : null,
  };
}

/** GET /v1/vault/view/:token/documents/:doc_id: needs the documents scope (403 insufficient_scope). */
export function viewDocument(ctx: Context, token: string, docId: string) {
  const { asset, scopes } = liveGrant(ctx, token);
  if (!scopes.includes("documents")) throw forbidden("insufficient_scope", "this view grant does not include the documents scope", { required_scope: "documents" });
  return documentContent(ctx, asset, docId);
}

/**
 * Org invites, of two kinds:
 * - wallet: names a wallet; whichever account holds it when accepting (linked now, or after a
 *   later sign-in) may accept, and sees it under GET /v1/orgs/invites/mine;
 * - link: a one-time secret token (inv_…) shown once to its creator and stored only as sha256;
 *   whoever presents it first while it is pending joins.
 *
 * Pending = not accepted, not revoked (or declined), not expired. Accepting consumes the invite
 * and adds the member in one transaction; a consumed, expired, revoked or unknown invite answers
 * the same 404 so a token or id reveals nothing about its history.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, conflict, notFound } from "../../core/errors.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { findAccountByWallet, normalizeAddress, walletAddressesOf } from "../auth/index.ts";
import { insertMember } from "./members.ts";
import { orgRole, requireMayManage, requireOrgRole, type Role } from "./roles.ts";
import { getOrg, type OrgView } from "./service.ts";

/** Spec §8: org invites are capped at 200; we cap the pending ones, which is what the list returns. */
export const MAX_PENDING_INVITES = 200;
export const INVITE_TTL_SECS = { min: 300, max: 30 * 86_400, default: 7 * 86_400 };
export const INVITE_TOKEN_PREFIX = "inv";

interface InviteRow {
  id: string;
  org_id: string;
  role: Role;
  wallet_address: string | null;
  token_sha256: string | null;
  created_by: string;
  created_at: number;
  expires_at: number;
}

export interface InviteView {
  id: string;
  org_id: string;
  kind: "wallet" | "link";
  role: Role;
  /** EIP-55 checksummed; null for a link invite. */
  wallet_address: string | null;
  created_by: string;
  created_at: string;
  expires_at: string;
}

export interface MyInviteView {
  id: string;
  org_id: string;
  org_name: string;
  role: Role;
  wallet_address: string;
  created_at: string;
  expires_at: string;
}

const view = (r: InviteRow): InviteView => ({
  id: r.id,
  org_id: r.org_id,
  kind: r.wallet_address === null ? "link" : "wallet",
  role: r.role,
  wallet_address: r.wallet_address === null ? null : toChecksumAddress(r.wallet_address),
  created_by: r.created_by,
  created_at: isoTime(r.created_at),
  expires_at: isoTime(r.expires_at),
});

// Written out in each query (rather than bound once) so SQLite can use the partial indexes.
const PENDING = "accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?";

const inviteNotFound = (): ApiError => notFound("invite");

const alreadyMember = (): ApiError => conflict("already_member", "you are already a member of this organization; the invite was left unused");

export interface CreateInviteInput {
  role: Role;
  walletAddress?: string | null;
  expiresInSecs?: number;
}

export interface CreatedInvite {
  invite: InviteView;
  /** The link's secret, for link invites only: shown here once, never again. */
  token?: string;
}

/** Creates a wallet or link invite (admin+; owner for an owner invite); at most 200 pending per org. */
export function createInvite(ctx: Context, actorId: string, orgId: string, input: CreateInviteInput): CreatedInvite {
  const wallet = input.walletAddress == null ? null : normalizeAddress(input.walletAddress, "wallet_address");
  const ttlSecs = input.expiresInSecs ?? INVITE_TTL_SECS.default;
  return ctx.tx.run(() => {
    const actorRole = requireOrgRole(ctx, orgId, actorId, "admin");
    requireMayManage(actorRole, input.role);
    const now = ctx.clock.now();
    const pending = ctx.db.query<{ n: number }, [string, number]>(`SELECT count(*) AS n FROM org_invites WHERE org_id = ? AND ${PENDING}`).get(orgId, now)!.n;
    if (pending >= MAX_PENDING_INVITES) {
      throw conflict("too_many_invites", `the organization has ${MAX_PENDING_INVITES} pending invites, the most it may have; revoke some or let them expire first`);
    }
    let token: string | undefined;
    if (wallet !== null) {
      const holder = findAccountByWallet(ctx, wallet);
      if (holder !== null && orgRole(ctx, orgId, holder) !== null) throw conflict("already_member", "the account holding this wallet is already a member");
      const existing = ctx.db
        .query<{ id: string }, [string, string, number]>(`SELECT id FROM org_invites WHERE org_id = ? AND wallet_address = ? AND ${PENDING}`)
        .get(orgId, wallet, now);
      if (existing) {
        // One pending invite per wallet keeps "which role did we offer?" unambiguous; revoke to change it.
        throw new ApiError(409, "already_invited", "this wallet already has a pending invite to the organization; revoke it to send a different one", {
          invite_id: existing.id,
        });
      }
    } else {
      token = newSecret(INVITE_TOKEN_PREFIX);
    }
    const row = ctx.db
      .query<InviteRow, [string, string, Role, string | null, string | null, string, number, number]>(
        `INSERT INTO org_invites (id, org_id, role, wallet_address, token_sha256, created_by, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(newId("inv"), orgId, input.role, wallet, token === undefined ? null : sha256Hex(token), actorId, now, now + ttlSecs * 1000)!;
    return token === undefined ? { invite: view(row) } : { invite: view(row), token };
  });
}

/** The org's pending invites, newest first (admin+). */
export function listInvites(ctx: Context, actorId: string, orgId: string): InviteView[] {
  requireOrgRole(ctx, orgId, actorId, "admin");
  return ctx.db
    .query<InviteRow, [string, number, number]>(`SELECT * FROM org_invites WHERE org_id = ? AND ${PENDING} ORDER BY created_at DESC, rowid DESC LIMIT ?`)
    .all(orgId, ctx.clock.now(), MAX_PENDING_INVITES)
    .map(view);
}

/** Revokes a pending invite (admin+; owner for an owner invite). Not pending → 404. */
export function revokeInvite(ctx: Context, actorId: string, orgId: string, inviteId: string): void {
  ctx.tx.run(() => {
    const actorRole = requireOrgRole(ctx, orgId, actorId, "admin");
    const now = ctx.clock.now();
    const invite = ctx.db.query<InviteRow, [string, string, number]>(`SELECT * FROM org_invites WHERE id = ? AND org_id = ? AND ${PENDING}`).get(inviteId, orgId, now);
    if (!invite) throw inviteNotFound();
    requireMayManage(actorRole, invite.role);
    ctx.db.query("UPDATE org_invites SET revoked_at = ?, revoked_by = ? WHERE id = ?").run(now, actorId, inviteId);
  });
}

/**
 * Joins the consumed invite's org. Runs inside the accepting transaction: when the caller is
 * already a member the throw rolls the consumption back, so the invite stays usable (a link
 * can still be passed to whoever it was meant for).
 */
function join(ctx: Context, accountId: string, invite: InviteRow): OrgView {
  if (orgRole(ctx, invite.org_id, accountId) !== null) throw alreadyMember();
  insertMember(ctx, invite.org_id, accountId, invite.role);
  return getOrg(ctx, accountId, invite.org_id);
}

/** Accepts a link invite by its token: single use, consumed atomically. */
export function acceptLink(ctx: Context, accountId: string, token: string): OrgView {
  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    const invite = ctx.db
      .query<InviteRow, [number, string, string, number]>(
        `UPDATE org_invites SET accepted_at = ?, accepted_by = ? WHERE token_sha256 = ? AND ${PENDING} RETURNING *`,
      )
      .get(now, accountId, sha256Hex(token), now);
    if (!invite) throw inviteNotFound();
    return join(ctx, accountId, invite);
  });
}

// The invite's wallet must be linked to the caller at the moment of the call (the JSON array of its wallets, read in the same transaction).
const HELD_BY_CALLER = "wallet_address IN (SELECT value FROM json_each(?))";
const callerWallets = (ctx: Context, accountId: string): string => JSON.stringify(walletAddressesOf(ctx, accountId));

/** Accepts a wallet invite; the caller must hold the invited wallet, else 404. */
export function acceptWalletInvite(ctx: Context, accountId: string, inviteId: string): OrgView {
  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    const invite = ctx.db
      .query<InviteRow, [number, string, string, string, number]>(
        `UPDATE org_invites SET accepted_at = ?, accepted_by = ? WHERE id = ? AND ${HELD_BY_CALLER} AND ${PENDING} RETURNING *`,
      )
      .get(now, accountId, inviteId, callerWallets(ctx, accountId), now);
    if (!invite) throw inviteNotFound();
    return join(ctx, accountId, invite);
  });
}

/** Declines a wallet invite addressed to one of the caller's wallets (recorded as revoked by the invitee). */
export function declineWalletInvite(ctx: Context, accountId: string, inviteId: string): void {
  const now = ctx.clock.now();
  const r = ctx.db
    .query(`UPDATE org_invites SET revoked_at = ?, revoked_by = ? WHERE id = ? AND ${HELD_BY_CALLER} AND ${PENDING}`)
    .run(now, accountId, inviteId, callerWallets(ctx, accountId), now);
  if (r.changes === 0) throw inviteNotFound();
}

/** Pending wallet invites for any wallet the caller holds, to orgs it is not yet in; newest first. */
export function listMyInvites(ctx: Context, accountId: string): MyInviteView[] {
  return ctx.db
    .query<InviteRow & { org_name: string }, [string, number, string]>(
      `SELECT i.*, o.name AS org_name FROM org_invites i JOIN orgs o ON o.id = i.org_id
       WHERE i.wallet_address IN (SELECT value FROM json_each(?))
         AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ?
         AND NOT EXISTS (SELECT 1 FROM org_members m WHERE m.org_id = i.org_id AND m.account_id = ?)
       ORDER BY i.created_at DESC, i.rowid DESC`,
    )
    .all(callerWallets(ctx, accountId), ctx.clock.now(), accountId)
    .map((r) => ({
      id: r.id,
      org_id: r.org_id,
      org_name: r.org_name,
      role: r.role,
      wallet_address: toChecksumAddress(r.wallet_address!),
      created_at: isoTime(r.created_at),
      expires_at: isoTime(r.expires_at),
    }));
}

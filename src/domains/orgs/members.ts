/**
 * Org members: listing, role changes, removal and leaving.
 *
 * Rules (docs/orgs.md): admins manage members and admins; only owners grant, change or take
 * away the owner role; nobody changes their own role (leaving is the way down), so a role can
 * never be raised by its holder; an org always keeps at least one owner (409 last_owner).
 * When an account loses the standing to have made an invite (removed, left, or demoted below
 * the invite's role), its pending invites are revoked in the same transaction: an invite is
 * never worth more than its creator's current authority.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, conflict, forbidden, notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { primaryWallet } from "../auth/index.ts";
import { orgRole, requireMayManage, requireOrgRole, type Role } from "./roles.ts";

interface MemberRow {
  account_id: string;
  role: Role;
  joined_at: number;
}

export interface MemberView {
  account_id: string;
  role: Role;
  /** The member's first linked wallet, EIP-55 checksummed, or null when it has none. */
  wallet: string | null;
  joined_at: string;
}

// A member's wallet is its first linked one (auth's primaryWallet), already checksummed.
const view = (ctx: Context, r: MemberRow): MemberView => ({
  account_id: r.account_id,
  role: r.role,
  wallet: primaryWallet(ctx, r.account_id),
  joined_at: isoTime(r.joined_at),
});

const SELECT_MEMBERS = "SELECT m.account_id, m.role, m.joined_at FROM org_members m WHERE m.org_id = ?";

const memberNotFound = (): ApiError => notFound("member");

function memberView(ctx: Context, orgId: string, accountId: string): MemberView {
  return view(ctx, ctx.db.query<MemberRow, [string, string]>(`${SELECT_MEMBERS} AND m.account_id = ?`).get(orgId, accountId)!);
}

/** Every member of the org, in the order they joined (members only). */
export function listMembers(ctx: Context, accountId: string, orgId: string): MemberView[] {
  requireOrgRole(ctx, orgId, accountId, "member");
  return ctx.db.query<MemberRow, [string]>(`${SELECT_MEMBERS} ORDER BY m.joined_at, m.rowid`).all(orgId).map((r) => view(ctx, r));
}

/** Adds a member (called by invite acceptance inside its transaction). */
export function insertMember(ctx: Context, orgId: string, accountId: string, role: Role): void {
  ctx.db.query("INSERT INTO org_members (org_id, account_id, role, joined_at) VALUES (?, ?, ?, ?)").run(orgId, accountId, role, ctx.clock.now());
}

/** The invariant every removal and demotion checks before it commits: an org always has an owner. */
function assertOwnerRemains(ctx: Context, orgId: string): void {
  const owners = ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM org_members WHERE org_id = ? AND role = 'owner'").get(orgId)!.n;
  if (owners === 0) {
    throw conflict("last_owner", "this is the organization's last owner; make another member an owner first, or delete the organization");
  }
}

/**
 * Revokes the pending invites `creatorId` made that its new role (null: no longer a member)
 * could not make: all of them below admin, the owner invites below owner.
 */
function revokeInvitesBeyond(ctx: Context, orgId: string, creatorId: string, newRole: Role | null, by: string): void {
  if (newRole === "owner") return;
  const onlyOwnerInvites = newRole === "admin" ? "AND role = 'owner'" : "";
  ctx.db
    .query(
      `UPDATE org_invites SET revoked_at = ?, revoked_by = ?
       WHERE org_id = ? AND created_by = ? AND accepted_at IS NULL AND revoked_at IS NULL ${onlyOwnerInvites}`,
    )
    .run(ctx.clock.now(), by, orgId, creatorId);
}

/** Changes another member's role (admin+; owner when the old or new role is owner). */
export function setMemberRole(ctx: Context, actorId: string, orgId: string, targetId: string, role: Role): MemberView {
  return ctx.tx.run(() => {
    const actorRole = requireOrgRole(ctx, orgId, actorId, "admin");
    if (targetId === actorId) {
      throw forbidden("cannot_change_own_role", "you cannot change your own role; another admin or owner can, or you can leave the organization");
    }
    const current = orgRole(ctx, orgId, targetId);
    if (current === null) throw memberNotFound();
    requireMayManage(actorRole, current);
    requireMayManage(actorRole, role);
    if (current !== role) {
      ctx.db.query("UPDATE org_members SET role = ? WHERE org_id = ? AND account_id = ?").run(role, orgId, targetId);
      revokeInvitesBeyond(ctx, orgId, targetId, role, actorId);
      assertOwnerRemains(ctx, orgId);
    }
    return memberView(ctx, orgId, targetId);
  });
}

function deleteMember(ctx: Context, orgId: string, accountId: string, by: string): void {
  ctx.db.query("DELETE FROM org_members WHERE org_id = ? AND account_id = ?").run(orgId, accountId);
  revokeInvitesBeyond(ctx, orgId, accountId, null, by);
  assertOwnerRemains(ctx, orgId);
}

/** Removes another member (admin+; owner to remove an owner). Removing yourself is leaving. */
export function removeMember(ctx: Context, actorId: string, orgId: string, targetId: string): void {
  if (targetId === actorId) return leaveOrg(ctx, actorId, orgId);
  ctx.tx.run(() => {
    const actorRole = requireOrgRole(ctx, orgId, actorId, "admin");
    const current = orgRole(ctx, orgId, targetId);
    if (current === null) throw memberNotFound();
    requireMayManage(actorRole, current);
    deleteMember(ctx, orgId, targetId, actorId);
  });
}

/** The caller leaves the org; the last owner cannot (409 last_owner). */
export function leaveOrg(ctx: Context, accountId: string, orgId: string): void {
  ctx.tx.run(() => {
    requireOrgRole(ctx, orgId, accountId, "member");
    deleteMember(ctx, orgId, accountId, accountId);
  });
}

/**
 * Org roles and the checks other domains call before acting for an org (spec §5 rule 7:
 * "launches creation and autopilot adoption need the admin role of the account").
 *
 * Roles rank owner > admin > member. A caller who is not a member of the org gets the same 404
 * as for an org that does not exist (spec §7: hidden records answer like unknown ones); a
 * member below the needed role gets 403 insufficient_role naming the role needed.
 */
import { ApiError, notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";

export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

/** True when `role` is `minimum` or above it. */
export const atLeast = (role: Role, minimum: Role): boolean => RANK[role] >= RANK[minimum];

export const insufficientRole = (required: Role, role: Role): ApiError =>
  new ApiError(403, "insufficient_role", `this needs the ${required} role in the organization; you are ${role === "admin" ? "an" : "a"} ${role}`, {
    required_role: required,
    role,
  });

export const orgNotFound = (): ApiError => notFound("organization");

/** The account's role in the org, or null when it is not a member (or the org does not exist). */
export function orgRole(ctx: Context, orgId: string, accountId: string): Role | null {
  return ctx.db.query<{ role: Role }, [string, string]>("SELECT role FROM org_members WHERE org_id = ? AND account_id = ?").get(orgId, accountId)?.role ?? null;
}

/** The account's role when it is at least `minimum`; 404 for non-members, 403 insufficient_role below it. */
export function requireOrgRole(ctx: Context, orgId: string, accountId: string, minimum: Role): Role {
  const role = orgRole(ctx, orgId, accountId);
  if (role === null) throw orgNotFound();
  if (!atLeast(role, minimum)) throw insufficientRole(minimum, role);
  return role;
}

/**
 * The role an account acts with on a resource: in its own name (orgId null) an account is the
 * owner of its own resources, so every role check passes; on an org's resource it needs that
 * role in the org. Later features (launch creation, autopilot adoption) call this with
 * minimum "admin" and the org the resource belongs to, or null for a personal one.
 */
export function requireActingRole(ctx: Context, accountId: string, orgId: string | null, minimum: Role): Role {
  return orgId === null ? "owner" : requireOrgRole(ctx, orgId, accountId, minimum);
}

/**
 * Who may hand out or take away a role: admins manage members, admins and invites for those
 * roles; only owners grant, change or take away the owner role.
 */
export const mayManage = (actorRole: Role | null, role: Role): boolean => actorRole !== null && atLeast(actorRole, role === "owner" ? "owner" : "admin");

/** 403 insufficient_role unless `actorRole` may manage `role` (see mayManage). */
export function requireMayManage(actorRole: Role, role: Role): void {
  if (!mayManage(actorRole, role)) throw insufficientRole(role === "owner" ? "owner" : "admin", actorRole);
}

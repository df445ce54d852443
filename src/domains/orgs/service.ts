/**
 * Organizations: a name and a set of member accounts with roles (owner > admin > member).
 * This file holds the org itself (create, list, read, rename, delete); members.ts and
 * invites.ts hold the rest. The role checks other domains use are in roles.ts and re-exported
 * here, so `import { requireOrgRole } from "../orgs/service.ts"` is the domain's one entry point.
 *
 * Every read or change first resolves the caller's role, so a non-member learns nothing: the
 * org answers 404 exactly as an unknown id does.
 */
import { isoTime } from "../../core/clock.ts";
import { conflict, invalidField } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { orgNotFound, requireOrgRole, type Role } from "./roles.ts";

export { orgRole, requireActingRole, requireOrgRole, type Role } from "./roles.ts";

export const NAME_MAX = 100;

interface OrgRow {
  id: string;
  name: string;
  created_at: number;
  updated_at: number;
  role: Role;
  member_count: number;
}

export interface OrgView {
  id: string;
  name: string;
  /** The caller's role in the org. */
  role: Role;
  member_count: number;
  created_at: string;
  updated_at: string;
}

const view = (r: OrgRow): OrgView => ({
  id: r.id,
  name: r.name,
  role: r.role,
  member_count: r.member_count,
  created_at: isoTime(r.created_at),
  updated_at: isoTime(r.updated_at),
});

// The org as one member sees it: their role comes from the join, so a non-member gets no row.
const SELECT_AS_MEMBER = `SELECT o.id, o.name, o.created_at, o.updated_at, m.role,
  (SELECT count(*) FROM org_members c WHERE c.org_id = o.id) AS member_count
  FROM orgs o JOIN org_members m ON m.org_id = o.id AND m.account_id = ?`;

/** Trimmed name of 1–100 characters without control characters, or 400 naming `name`. */
export function cleanName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw invalidField("name", "must not be blank");
  if (name.length > NAME_MAX) throw invalidField("name", `must be at most ${NAME_MAX} characters`);
  // A name is shown in lists and invites; a newline or escape code in it would forge layout there.
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalidField("name", "must not contain control characters");
  return name;
}

/** The org as `accountId` sees it; 404 when it does not exist or the account is not a member. */
export function getOrg(ctx: Context, accountId: string, orgId: string): OrgView {
  const row = ctx.db.query<OrgRow, [string, string]>(`${SELECT_AS_MEMBER} WHERE o.id = ?`).get(accountId, orgId);
  if (!row) throw orgNotFound();
  return view(row);
}

/** Creates an org whose only member, its owner, is the creator. */
export function createOrg(ctx: Context, accountId: string, rawName: string): OrgView {
  const name = cleanName(rawName);
  return ctx.tx.run(() => {
    const id = newId("org");
    const now = ctx.clock.now();
    ctx.db.query("INSERT INTO orgs (id, name, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(id, name, accountId, now, now);
    ctx.db.query("INSERT INTO org_members (org_id, account_id, role, joined_at) VALUES (?, ?, 'owner', ?)").run(id, accountId, now);
    return getOrg(ctx, accountId, id);
  });
}

/** The orgs the account belongs to, with its role in each, in the order it joined them. */
export function listOrgs(ctx: Context, accountId: string): OrgView[] {
  return ctx.db.query<OrgRow, [string]>(`${SELECT_AS_MEMBER} ORDER BY m.joined_at, m.rowid`).all(accountId).map(view);
}

/** Renames the org (admin or owner). */
export function renameOrg(ctx: Context, accountId: string, orgId: string, rawName: string): OrgView {
  const name = cleanName(rawName);
  return ctx.tx.run(() => {
    requireOrgRole(ctx, orgId, accountId, "admin");
    ctx.db.query("UPDATE orgs SET name = ?, updated_at = ? WHERE id = ?").run(name, ctx.clock.now(), orgId);
    return getOrg(ctx, accountId, orgId);
  });
}

/**
 * Deletes the org with its memberships and invites (owner only). Refused while anyone else is
 * still a member, so no one loses an org they belong to by someone else's single call: the
 * owner removes the others (or they leave) first.
 */
export function deleteOrg(ctx: Context, accountId: string, orgId: string): void {
  ctx.tx.run(() => {
    requireOrgRole(ctx, orgId, accountId, "owner");
    const others = ctx.db.query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM org_members WHERE org_id = ? AND account_id <> ?").get(orgId, accountId)!.n;
    if (others > 0) {
      throw conflict("org_not_empty", `the organization still has ${others} other member${others === 1 ? "" : "s"}; remove them (or have them leave) before deleting it`);
    }
    ctx.db.query("DELETE FROM orgs WHERE id = ?").run(orgId); // members and invites cascade
  });
}

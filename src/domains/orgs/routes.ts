/**
 * /v1/orgs/*: organizations, members and invites (session class). Thin: each route checks
 * its input against a closed schema, calls one service function with the caller's account,
 * and shapes the answer. Rules and their reasons are in service.ts, members.ts, invites.ts
 * and docs/orgs.md.
 *
 * The literal /v1/orgs/invites/… routes are declared first; Elysia's router prefers a literal
 * segment over a template anyway (spec §9.3), and org ids (org_…) never equal "invites".
 */
import { Elysia, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { acceptLink, acceptWalletInvite, createInvite, declineWalletInvite, listInvites, listMyInvites, revokeInvite } from "./invites.ts";
import { leaveOrg, listMembers, removeMember, setMemberRole } from "./members.ts";
import * as M from "./models.ts";
import { createOrg, deleteOrg, getOrg, listOrgs, renameOrg } from "./service.ts";

const tags = ["orgs"];
const security = [{ session: [] }];
const doc = (summary: string) => ({ detail: { summary, tags, security } });

export function orgRoutes(ctx: Context) {
  return (
    new Elysia({ prefix: "/v1/orgs" })
      .use(guards.session(ctx))

      // Invites addressed to the caller (literal paths).
      .get("/invites/mine", ({ principal }) => bareArray(listMyInvites(ctx, principal.accountId)), {
        response: { 200: t.Array(M.MyInvite) },
        ...doc("Pending wallet invites for the caller's wallets"),
      })
      .post("/invites/accept", ({ principal, body }) => acceptLink(ctx, principal.accountId, body.token), {
        body: M.TokenBody,
        // 404: the token is unknown, used, revoked or expired (one answer); 409 already_member.
        response: { 200: M.Org, ...errors(404, 409) },
        ...doc("Accept a one-time invite link"),
      })
      .post("/invites/:invite_id/accept", ({ principal, params }) => acceptWalletInvite(ctx, principal.accountId, params.invite_id), {
        params: M.InviteParams,
        response: { 200: M.Org, ...errors(409) }, // 409 already_member
        ...doc("Accept a wallet invite (the caller must hold the invited wallet)"),
      })
      .post(
        "/invites/:invite_id/decline",
        ({ principal, params }) => {
          declineWalletInvite(ctx, principal.accountId, params.invite_id);
          return { id: params.invite_id, declined: true as const };
        },
        { params: M.InviteParams, response: { 200: M.InviteDeclined }, ...doc("Decline a wallet invite") },
      )

      // Orgs.
      .post(
        "",
        ({ principal, body, set }) => {
          set.status = 201;
          return createOrg(ctx, principal.accountId, body.name);
        },
        { body: M.OrgBody, response: { 201: M.Org }, ...doc("Create an organization (the caller becomes its owner)") },
      )
      .get("", ({ principal }) => bareArray(listOrgs(ctx, principal.accountId)), {
        response: { 200: t.Array(M.Org) },
        ...doc("Organizations the caller belongs to, with its role"),
      })
      .get("/:id", ({ principal, params }) => getOrg(ctx, principal.accountId, params.id), {
        params: M.OrgParams,
        response: { 200: M.Org },
        ...doc("One organization (members only)"),
      })
      .patch("/:id", ({ principal, params, body }) => renameOrg(ctx, principal.accountId, params.id, body.name), {
        params: M.OrgParams,
        body: M.OrgBody,
        response: { 200: M.Org },
        ...doc("Rename an organization (admin or owner)"),
      })
      .delete(
        "/:id",
        ({ principal, params }) => {
          deleteOrg(ctx, principal.accountId, params.id);
          return { id: params.id, deleted: true as const };
        },
        // 409 org_not_empty
        { params: M.OrgParams, response: { 200: M.OrgDeleted, ...errors(409) }, ...doc("Delete an organization (owner; no other members left)") },
      )
      .post(
        "/:id/leave",
        ({ principal, params }) => {
          leaveOrg(ctx, principal.accountId, params.id);
          return { org_id: params.id, left: true as const };
        },
        { params: M.OrgParams, response: { 200: M.OrgLeft, ...errors(409) }, ...doc("Leave an organization") }, // 409 last_owner
      )

      // Members.
      .get("/:id/members", ({ principal, params }) => bareArray(listMembers(ctx, principal.accountId, params.id)), {
        params: M.OrgParams,
        response: { 200: t.Array(M.Member) },
        ...doc("Members of an organization (members only)"),
      })
      .patch("/:id/members/:account_id", ({ principal, params, body }) => setMemberRole(ctx, principal.accountId, params.id, params.account_id, body.role), {
        params: M.MemberParams,
        body: M.RoleBody,
        response: { 200: M.Member, ...errors(409) }, // 409 last_owner
        ...doc("Change another member's role"),
      })
      .delete(
        "/:id/members/:account_id",
        ({ principal, params }) => {
          removeMember(ctx, principal.accountId, params.id, params.account_id);
          return { org_id: params.id, account_id: params.account_id, removed: true as const };
        },
        {
          params: M.MemberParams,
          response: { 200: M.MemberRemoved, ...errors(409) }, // 409 last_owner
          ...doc("Remove a member (your own id: leave)"),
        },
      )

      // The org's invites.
      .get("/:id/invites", ({ principal, params }) => bareArray(listInvites(ctx, principal.accountId, params.id)), {
        params: M.OrgParams,
        response: { 200: t.Array(M.Invite) },
        ...doc("Pending invites, newest first (admin or owner; at most 200)"),
      })
      .post(
        "/:id/invites",
        ({ principal, params, body, set }) => {
          const { invite, token } = createInvite(ctx, principal.accountId, params.id, {
            role: body.role,
            walletAddress: body.wallet_address,
            expiresInSecs: body.expires_in_secs,
          });
          set.status = 201;
          return token === undefined ? invite : { ...invite, token };
        },
        {
          params: M.OrgParams,
          body: M.InviteBody,
          // 409 too_many_invites, already_member, already_invited
          response: { 201: M.CreatedInvite, ...errors(409) },
          ...doc("Invite a wallet, or create a one-time invite link"),
        },
      )
      .delete(
        "/:id/invites/:invite_id",
        ({ principal, params }) => {
          revokeInvite(ctx, principal.accountId, params.id, params.invite_id);
          return { id: params.invite_id, revoked: true as const };
        },
        { params: M.OrgInviteParams, response: { 200: M.InviteRevoked }, ...doc("Revoke a pending invite") },
      )
  );
}

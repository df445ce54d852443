/**
 * /v1/passport (spec §4.4 POST with a session; §4.1 the public reads) and
 * /v1/registry/identity/:handle (§4.1). Thin: each route validates, calls one service function
 * and shapes the answer. Rules: service.ts, stats.ts, anchoring.ts; docs: docs/passport.md.
 *
 *   POST /v1/passport                      {handle, agent_name, wallet?} → 201 minted, 200 refreshed
 *   GET  /v1/passport                      {agents, count, ordered_by}: the directory, at most 500
 *   GET  /v1/passport/:handle              the passport (spec §2.4)
 *   GET  /v1/passport/:handle/proof        credential, commitment, root, siblings, anchors
 *   GET  /v1/registry/identity/:handle     ERC-8004 registration file (off-chain half)
 */
import { Elysia } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { identityDocument } from "./identity.ts";
import * as M from "./models.ts";
import { getPassport, mintPassport, passportDirectory, passportProof } from "./service.ts";

const tags = ["passport"];

export function passportRoutes(ctx: Context) {
  const mint = new Elysia({ prefix: "/v1/passport" }).use(guards.session(ctx)).post(
    "",
    ({ principal, body, set }) => {
      const { passport, created } = mintPassport(ctx, principal.accountId, { handle: body.handle, agentName: body.agent_name, wallet: body.wallet ?? null });
      set.status = created ? 201 : 200;
      return passport;
    },
    {
      body: M.MintBody,
      // 409 handle_taken (another account holds the handle) or handle_fixed (this account's passport has another).
      response: { 200: M.Passport, 201: M.Passport, ...errors(409) },
      detail: {
        summary: "Mint (201) or refresh (200) the account's passport from its own receipts, runs, anchors, usage and mandates: a signed credential whose commitment is anchored",
        description: "One passport per account; the handle is fixed at the first mint. See docs/passport.md.",
        tags,
        security: [{ session: [] }],
      },
    },
  );

  const open = new Elysia({ prefix: "/v1/passport" })
    .use(guards.public(ctx))
    .get("", () => passportDirectory(ctx), {
      response: { 200: M.Directory },
      detail: { summary: "The public passport directory, ranked by verified runs then receipts ({agents, count, ordered_by}; at most 500)", tags },
    })
    .get("/:handle", ({ params }) => getPassport(ctx, params.handle), {
      params: M.HandleParams,
      response: { 200: M.Passport },
      detail: { summary: "A passport: its figures, signed credential, commitment and anchor (404 for an unknown handle)", tags },
    })
    .get("/:handle/proof", ({ params }) => passportProof(ctx, params.handle), {
      params: M.HandleParams,
      response: { 200: M.Proof },
      detail: { summary: "The passport's proof: signed credential, recomputable commitment, batch root, ordered sibling hashes and the root's anchors", tags },
    });

  const registry = new Elysia({ prefix: "/v1/registry" }).use(guards.public(ctx)).get("/identity/:handle", ({ params }) => identityDocument(ctx, params.handle), {
    params: M.HandleParams,
    response: { 200: M.IdentityDocument },
    detail: { summary: "The passport as an ERC-8004 agent registration file (off-chain half only: no registry contract is deployed)", tags },
  });

  return [mint, open, registry];
}

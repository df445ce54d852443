/**
 * /v1/legacy (spec §4.4 "Legacy": session routes; §4.1 the claim link, public). Thin: a closed
 * schema checks the body, one service call does the work (rules in plans.ts, attest.ts,
 * claims.ts and lifecycle.ts; docs/legacy.md).
 *
 *   POST /v1/legacy/plans                      {name, checkin_interval_s, warning_period_s, attesters?, attesters_required?, max_hold_s?, beneficiaries} → 201 {plan, claim_links}
 *   GET  /v1/legacy/plans                      {plans, max_active_plans, custody}
 *   GET  /v1/legacy/plans/:id                  the plan with its history
 *   POST /v1/legacy/plans/:id/checkin          deadline reset; warning and confirmations cleared
 *   PUT  /v1/legacy/plans/:id/content          {objects: [{name, content_b64}]} replaces the sealed content
 *   POST /v1/legacy/plans/:id/cancel           ciphertexts nulled, claim links killed (idempotent)
 *   POST /v1/legacy/plans/:id/attest           an attester's confirmation (in warning only)
 *   GET  /v1/legacy/attesting                  {plans} the caller attests
 *   GET  /v1/legacy/claims                     {claims} released plans the caller is a beneficiary of
 *   POST /v1/legacy/claims/:plan_id/open       {token?} released → claimed, once per beneficiary
 *   GET  /v1/legacy/claims/:plan_id/objects/:object_id   {id, name, bytes, content_b64}
 *   GET  /v1/legacy/claim/:token               public: {plan_name, wallet_required, status}
 */
import { Elysia, t } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { attest, listAttesting } from "./attest.ts";
import { claimLink, claimObject, listClaims, openClaim } from "./claims.ts";
import { CUSTODY } from "./limits.ts";
import * as M from "./models.ts";
import { cancelPlan, checkin, createPlan, getPlan, listPlans, replaceContent } from "./plans.ts";

const tags = ["legacy"];
const security = [{ session: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

export function legacyRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/legacy" })
    .use(guards.session(ctx))
    .post(
      "/plans",
      ({ principal, body, set }) => {
        const created = createPlan(ctx, principal.accountId, body);
        set.status = 201;
        return created;
      },
      {
        body: M.CreateBody,
        response: { 201: M.CreatedPlan, ...errors(409) },
        ...doc(
          "Create a legacy plan (a dead-man's switch): each beneficiary gets a claim link whose token is returned once",
          "409 legacy_plan_limit past legacy.max_active_plans plans not yet claimed or cancelled. Put the content with PUT /v1/legacy/plans/:id/content.",
        ),
      },
    )
    .get("/plans", ({ principal }) => namedList("plans", listPlans(ctx, principal.accountId), { max_active_plans: ctx.config.legacy.max_active_plans, custody: CUSTODY }), {
      response: { 200: M.PlanList },
      ...doc("The account's legacy plans, newest first, at most 100 ({plans, max_active_plans, custody}); never their content"),
    })
    .get("/plans/:id", ({ principal, params }) => getPlan(ctx, principal.accountId, params.id), {
      params: M.PlanParams,
      response: { 200: M.PlanDetail },
      ...doc("One plan with its content-free history"),
    })
    .post("/plans/:id/checkin", ({ principal, params }) => checkin(ctx, principal.accountId, params.id), {
      params: M.PlanParams,
      response: { 200: M.Plan, ...errors(409) },
      ...doc(
        "Check in: the deadline restarts from now; a warning and every attester confirmation are cleared (also withdraws a release no one has opened)",
        "409 legacy_plan_closed for a claimed or cancelled plan.",
      ),
    })
    .put("/plans/:id/content", ({ principal, params, body }) => replaceContent(ctx, principal.accountId, params.id, body.objects), {
      params: M.PlanParams,
      body: M.ContentBody,
      response: { 200: M.Plan, ...errors(409) },
      ...doc(
        "Replace the plan's content as a whole: objects sealed at rest, released to beneficiaries with the plan",
        "409 legacy_plan_released (check in first) or legacy_plan_closed; 413 legacy_content_too_large past legacy.max_content_bytes.",
      ),
    })
    .post("/plans/:id/cancel", ({ principal, params }) => cancelPlan(ctx, principal.accountId, params.id), {
      params: M.PlanParams,
      response: { 200: M.Plan },
      ...doc("Cancel a plan: its ciphertexts are destroyed and its claim links stop working now; the content-free record stays (idempotent)"),
    })
    .post("/plans/:id/attest", ({ principal, params }) => attest(ctx, principal.accountId, params.id), {
      params: M.PlanParams,
      response: { 200: M.AttestingPlan, ...errors(409) },
      ...doc(
        "As an attester (signed in with an attester wallet), confirm that the plan may be released; counts only in warning",
        "Attesters hold a release back until attesters_required confirmed (or the hold ran out); they never start or speed up the timer. 409 legacy_plan_not_in_warning; 403 owner_cannot_attest; 404 for a plan the caller does not attest.",
      ),
    })
    .get("/attesting", ({ principal }) => namedList("plans", listAttesting(ctx, principal.accountId)), {
      response: { 200: M.AttestingList },
      ...doc("Plans one of the caller's wallets attests, newest first, at most 100 ({plans})"),
    })
    .get("/claims", ({ principal }) => namedList("claims", listClaims(ctx, principal.accountId)), {
      response: { 200: M.ClaimList },
      ...doc("Released plans the caller is a beneficiary of (by wallet, or opened with a claim token), newest first, at most 100 ({claims})"),
    })
    .post("/claims/:plan_id/open", ({ principal, params, body }) => openClaim(ctx, principal.accountId, params.plan_id, body?.token), {
      params: M.ClaimParams,
      // Optional: a beneficiary with a wallet opens with no body at all.
      body: t.Optional(M.OpenBody),
      response: { 200: M.Opened, ...errors(409) },
      ...doc(
        "Open a released plan as one of its beneficiaries: once per beneficiary (released → claimed)",
        "A beneficiary with a wallet opens it signed in with that wallet (403 wallet_required otherwise); one without presents its claim token. 409 legacy_plan_not_released, legacy_already_claimed.",
      ),
    })
    .get("/claims/:plan_id/objects/:object_id", ({ principal, params }) => claimObject(ctx, principal.accountId, params.plan_id, params.object_id), {
      params: M.ObjectParams,
      response: { 200: M.ObjectBytes },
      ...doc("One object of a plan the caller opened, as base64 bytes"),
    });
}

export function legacyPublicRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/legacy" })
    .use(guards.public(ctx))
    .get("/claim/:token", ({ params }) => claimLink(ctx, params.token), {
      params: M.TokenParams,
      response: { 200: M.ClaimLink },
      detail: {
        summary: "A claim link: the plan's name, whether opening needs the beneficiary's wallet, and the link's status",
        description: "404 not_found, identical, for an unknown token and for a cancelled plan's token.",
        tags,
      },
    });
}

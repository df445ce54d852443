/**
 * /v1/launches (spec §4.4, session): create (admin role; 501 while launches.enabled is off),
 * list, read with mint eligibility, PATCH the few mutable settings, bind the token once, check,
 * authorize mints, use the spec's tools, retire, and the subscription terms. Thin: each route
 * validates, calls one service function and shapes the answer (docs/launches.md).
 *
 *   POST  /v1/launches                         {name, slug?, org_id?, custodian, decimals, interval_s, spec, reveal_at?} → 201
 *   GET   /v1/launches/mine                    {launches}
 *   GET   /v1/launches/:id                     the launch with mint_eligibility
 *   PATCH /v1/launches/:id                     {custodian?: {url?, credential?, pointer?}, decimals?, interval_s?}
 *   POST  /v1/launches/:id/token               {chain, token} → bound once; 409 already_bound
 *   POST  /v1/launches/:id/mint-authorizations {amount, to} → 201 EIP-712 MintAuthorization
 *   POST  /v1/launches/:id/distributions       {amount_units, asset, record_date?, memo?} → 201
 *   POST  /v1/launches/:id/nav                 → 201 a NAV figure from the latest check
 *   POST  /v1/launches/:id/check               → the check
 *   POST  /v1/launches/:id/retire
 *   POST  /v1/launches/:id/subscription        {chain, payment_token, price_units, period_secs, pay_to}
 *   GET   /v1/launches/:id/subscription
 */
import { Elysia } from "elysia";
import { instant } from "../../core/instant.ts";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { checkView } from "./check-view.ts";
import { runCheck } from "./checks.ts";
import { authorizeMint, mintEligibility } from "./mint.ts";
import * as M from "./models.ts";
import { activeLaunch, createLaunch, listMine, managedLaunch, ownerView, patchLaunch, retire, visibleLaunch } from "./service.ts";
import { getSubscription, setSubscription } from "./subscriptions.ts";
import { bindLaunchToken } from "./token.ts";
import { publishNav, recordDistribution } from "./tools.ts";

const tags = ["launches"];
const security = [{ session: [] }];



export function launchRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/launches" })
    .use(guards.session(ctx))
    .post(
      "",
      async ({ principal, body, set }) => {
        const row = await createLaunch(ctx, principal.accountId, {
          name: body.name,
          slug: body.slug ?? null,
          orgId: body.org_id ?? null,
          custodian: body.custodian,
          decimals: body.decimals,
          intervalS: body.interval_s,
          spec: body.spec as Record<string, unknown>,
          revealAt: body.reveal_at === undefined ? null : instant("reveal_at", body.reveal_at),
        });
        set.status = 201;
        return ownerView(ctx, row);
      },
      {
        body: M.CreateBody,
        // 402 insufficient_credit (a launch fee is set); 404 an org the caller is not in; 409 slug_taken; 501 not_implemented (launches.enabled off).
        response: { 201: M.OwnerLaunch, ...errors(402, 404, 409, 501) },
        detail: {
          summary: "Create a launch: its spec locked (canonical JSON, sha256 digest), its custodian named, checks scheduled (admin role; 501 while launches.enabled is off)",
          description: "With org_id the caller needs the org's admin role (403 insufficient_role for a member). See docs/launches.md.",
          tags,
          security,
        },
      },
    )
    .get("/mine", ({ principal }) => namedList("launches", listMine(ctx, principal.accountId)), {
      response: { 200: M.OwnerLaunchList },
      detail: { summary: "The account's launches and its orgs', newest first, at most 200 ({launches})", tags, security },
    })
    .get(
      "/:id",
      async ({ principal, params }) => {
        const row = visibleLaunch(ctx, principal.accountId, params.id);
        return { ...ownerView(ctx, row), mint_eligibility: await mintEligibility(ctx, row) };
      },
      {
        params: M.Params,
        response: { 200: M.LaunchDetail },
        detail: { summary: "One launch, with its mint eligibility read live (latest check VERIFIED and fresh, token bound and not paused, headroom)", tags, security },
      },
    )
    .patch("/:id", ({ principal, params, body }) => ownerView(ctx, patchLaunch(ctx, principal.accountId, params.id, body)), {
      params: M.Params,
      body: M.PatchBody,
      // 409 launch_retired, token_bound (decimals once a token is bound).
      response: { 200: M.OwnerLaunch, ...errors(409) },
      detail: { summary: "Change the custodian's endpoint, credential or pointer, the decimals (before a token is bound) or the interval; nothing else", tags, security },
    })
    .post("/:id/token", async ({ principal, params, body }) => ownerView(ctx, await bindLaunchToken(ctx, principal.accountId, params.id, body)), {
      params: M.Params,
      body: M.TokenBody,
      // 409 already_bound, launch_retired; 422 not_an_erc20, decimals_mismatch; 503 chain_unavailable.
      response: { 200: M.OwnerLaunch, ...errors(409, 422, 503) },
      detail: { summary: "Bind the launch's ERC-20, once (its totalSupply() and decimals() read first); a second call answers 409 already_bound", tags, security },
    })
    .post(
      "/:id/mint-authorizations",
      async ({ principal, params, body, set }) => {
        const auth = await authorizeMint(ctx, principal.accountId, params.id, body);
        set.status = 201;
        return auth;
      },
      {
        params: M.Params,
        body: M.MintBody,
        // 409 check_not_verified, check_stale, token_not_bound, token_paused, reserves_short, launch_retired; 501 (rail off); 503 chain_unavailable.
        response: { 201: M.MintAuthorization, ...errors(409, 501, 503) },
        detail: {
          summary: "An EIP-712 MintAuthorization signed by the service, when the latest check is VERIFIED, the token not paused and the reserves cover supply + amount (501 while the rail is off)",
          tags,
          security,
        },
      },
    )
    .post(
      "/:id/distributions",
      ({ principal, params, body, set }) => {
        const out = recordDistribution(ctx, principal.accountId, params.id, {
          amount_units: body.amount_units,
          asset: body.asset,
          record_date: body.record_date === undefined ? null : new Date(instant("record_date", body.record_date)).toISOString(),
          memo: body.memo ?? null,
        });
        set.status = 201;
        return out;
      },
      {
        params: M.Params,
        body: M.DistributionBody,
        // 403 tool_not_locked, passthrough_not_declared; 409 launch_retired.
        response: { 201: M.ToolResult, ...errors(409) },
        detail: { summary: "Record a distribution to holders in the public actions log (the spec must grant distribute and declare passthrough; 403 tool_not_locked otherwise)", tags, security },
      },
    )
    .post(
      "/:id/nav",
      ({ principal, params, set }) => {
        const out = publishNav(ctx, principal.accountId, params.id);
        set.status = 201;
        return out;
      },
      {
        params: M.Params,
        // 403 tool_not_locked; 409 no_check_figures, launch_retired.
        response: { 201: M.ToolResult, ...errors(409) },
        detail: { summary: "Publish a NAV figure (reserves per token) from the latest check in the actions log (the spec must grant nav; 403 tool_not_locked otherwise)", tags, security },
      },
    )
    .post(
      "/:id/check",
      async ({ principal, params }) => {
        const row = activeLaunch(managedLaunch(ctx, principal.accountId, params.id));
        const check = await runCheck(ctx, row, "owner");
        return { launch_id: row.id, slug: row.slug, check: { ...checkView(check), stale: false } };
      },
      {
        params: M.Params,
        response: { 200: M.CheckResult, ...errors(409) },
        detail: { summary: "Check now: the custodian's reserves against the token's supply (VERIFIED, DISCREPANCY or UNAVAILABLE)", tags, security },
      },
    )
    .post("/:id/retire", ({ principal, params }) => ownerView(ctx, retire(ctx, principal.accountId, params.id)), {
      params: M.Params,
      response: { 200: M.OwnerLaunch },
      detail: { summary: "Retire the launch (idempotent): checks stop, nothing new is done; its published record stays public", tags, security },
    })
    .post(
      "/:id/subscription",
      async ({ principal, params, body, set }) => {
        const { terms, created } = await setSubscription(ctx, principal.accountId, params.id, body);
        set.status = created ? 201 : 200;
        return terms;
      },
      {
        params: M.Params,
        body: M.SubscriptionBody,
        // 403 payee_not_linked; 409 launch_retired; 501 (launches.subscriptions_enabled off); 503 chain_unavailable.
        response: { 201: M.SubscriptionTerms, 200: M.SubscriptionTerms, ...errors(409, 501, 503) },
        detail: { summary: "Set (201) or replace (200) the launch's subscription terms (501 while launches.subscriptions_enabled is off)", tags, security },
      },
    )
    .get("/:id/subscription", ({ principal, params }) => getSubscription(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.SubscriptionTerms, ...errors(501) },
      detail: { summary: "The launch's subscription terms; 404 when none are set (501 while launches.subscriptions_enabled is off)", tags, security },
    });
}

/**
 * /v1/keys: a person's keys (session) and delegation by a key (API key with keys:delegate).
 * The rules live in service.ts; scopes in scopes.ts (docs/scopes.md).
 */
import { Elysia, t } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { bareArray } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { parseScopes } from "./scopes.ts";
import { delegateKey, freezeKey, listKeys, mintKey, revokeKey, rotateKey, unfreezeKey } from "./service.ts";

const tags = ["keys"];
const session = [{ session: [] }];

/** expires_at (RFC 3339) or expires_in_secs, not both; in the future. */
function expiry(ctx: Context, body: { expires_at?: string | null; expires_in_secs?: number }): number | null {
  if (body.expires_at != null && body.expires_in_secs !== undefined) throw invalidField("expires_at", "give expires_at or expires_in_secs, not both");
  const now = ctx.clock.now();
  if (body.expires_in_secs !== undefined) return now + body.expires_in_secs * 1000;
  if (body.expires_at == null) return null;
  const at = Date.parse(body.expires_at);
  if (Number.isNaN(at)) throw invalidField("expires_at", "must be an RFC 3339 date-time");
  if (at <= now) throw invalidField("expires_at", "must be in the future");
  return at;
}

export function keyRoutes(ctx: Context) {
  const own = new Elysia({ prefix: "/v1/keys" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const minted = mintKey(ctx, {
          accountId: principal.accountId,
          name: body.name ?? null,
          scopes: parseScopes(body.scopes),
          monthlyCap: body.monthly_cap_micro_usd ?? null,
          breakerPerMinute: body.breaker_micro_usd_per_minute ?? null,
          expiresAt: expiry(ctx, body),
          privacyTier: body.privacy_tier ?? null,
        });
        set.status = 201;
        return { ...minted.view, key: minted.key };
      },
      {
        body: M.MintBody,
        // 409 plan_limit_reached: the plan's api_keys limit (billing).
        response: { 201: M.MintedKey, ...errors(409) },
        detail: { summary: "Mint an API key (the sk-svc_ secret is returned once)", tags, security: session },
      },
    )
    .get("", ({ principal, query }) => bareArray(listKeys(ctx, principal.accountId, query.include_revoked === "true")), {
      query: M.ListQuery,
      response: { 200: t.Array(M.Key) },
      detail: { summary: "The account's keys: prefixes, metadata, subtree spend this month (bare array)", tags, security: session },
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        const revoked = revokeKey(ctx, principal.accountId, params.id);
        return { id: params.id, revoked: revoked.length > 0, revoked_keys: revoked };
      },
      { params: M.KeyParams, response: { 200: M.Revoked }, detail: { summary: "Revoke a key and every key delegated below it", tags, security: session } },
    )
    .post(
      "/:id/rotate",
      ({ principal, params, set }) => {
        const minted = rotateKey(ctx, principal.accountId, params.id);
        set.status = 201;
        return { ...minted.view, key: minted.key, replaces: params.id, old_key_valid_until: new Date(ctx.clock.now() + ctx.config.keys.rotation_grace_secs * 1000).toISOString() };
      },
      {
        params: M.KeyParams,
        // 409 key_not_rotatable: a revoked, rotated or expired key.
        response: { 201: M.RotatedKey, ...errors(409) },
        detail: { summary: "Replace a key; the old secret works as the new key for the grace window", tags, security: session },
      },
    )
    .post("/:id/freeze", ({ principal, params, body }) => freezeKey(ctx, principal.accountId, params.id, body?.reason ?? null), {
      params: M.KeyParams,
      body: t.Optional(M.FreezeBody),
      // 409 key_revoked.
      response: { 200: M.Key, ...errors(409) },
      detail: { summary: "Freeze a key by hand: its spending (and its subtree's) is refused until unfrozen; idempotent", tags, security: session },
    })
    .post("/:id/unfreeze", ({ principal, params }) => unfreezeKey(ctx, principal.accountId, params.id), {
      params: M.KeyParams,
      // 409 key_revoked.
      response: { 200: M.Key, ...errors(409) },
      detail: { summary: "Lift a freeze (the circuit breaker's or the owner's)", tags, security: session },
    });

  const delegation = new Elysia({ prefix: "/v1/keys" })
    .use(guards.apiKey(ctx, "keys:delegate"))
    .post(
      "/delegate",
      ({ principal, body, set }) => {
        const minted = delegateKey(ctx, principal.keyId, {
          name: body.name ?? null,
          scopes: body.scopes === undefined ? undefined : parseScopes(body.scopes),
          monthlyCap: body.monthly_cap_micro_usd ?? null,
          expiresAt: expiry(ctx, body),
          allowedModels: body.allowed_models ?? null,
          allowedServices: body.allowed_services ?? null,
        });
        set.status = 201;
        return { ...minted.view, key: minted.key };
      },
      {
        body: M.DelegateBody,
        // 404: the calling key's row is not found (the service checks it; the guard has just read it).
        // 402 payment_rejected, 502 wrong_chain, 503 chain_unavailable: an x402 proof (X-PAYMENT /
        // PAYMENT-SIGNATURE) is checked by the API-key guard on every API-key route (src/guards.ts).
        response: { 201: M.MintedKey, ...errors(402, 404, 502, 503) },
        detail: { summary: "Mint a bounded child of the calling key", tags, security: [{ apiKey: [] }] },
      },
    );

  return new Elysia().use(own).use(delegation);
}

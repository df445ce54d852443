/**
 * /v1/keys: a person's keys (session) and delegation by a key (API key with keys:delegate).
 * The rules live in service.ts; scopes in scopes.ts (docs/scopes.md).
 */
import { Elysia, t } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { bareArray } from "../../core/envelopes.ts";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { PRIVACY_TIERS } from "../inference/index.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { parseScopes } from "./scopes.ts";
import { delegateKey, listKeys, mintKey, revokeKey, rotateKey, unfreezeKey } from "./service.ts";

const tags = ["keys"];
const session = [{ session: [] }];

const Scopes = t.Array(t.String({ minLength: 1, maxLength: 40 }), { maxItems: 32, description: 'scope names (docs/scopes.md); ["*"] or absent: every scope' });
const Name = t.String({ minLength: 1, maxLength: 100 });
const Models = t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 });

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

const Expiry = {
  expires_at: t.Optional(Nullable(t.String({ format: "date-time" }))),
  expires_in_secs: t.Optional(t.Integer({ minimum: 60, maximum: 10 * 365 * 86_400 })),
};

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
        body: t.Object(
          {
            name: t.Optional(Nullable(Name)),
            scopes: t.Optional(Scopes),
            monthly_cap_micro_usd: t.Optional(Nullable(MicroUsd())),
            privacy_tier: t.Optional(Nullable(t.Union(PRIVACY_TIERS.map((tier) => t.Literal(tier)), { description: "the privacy tier inference calls with this key ask for unless they set svc_privacy_tier; absent: standard (docs/inference.md)" }))),
            breaker_micro_usd_per_minute: t.Optional(Nullable(MicroUsd({ description: "spend per rolling minute that freezes the key; 0 turns the breaker off; absent: the deployment default" }))),
            ...Expiry,
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Mint an API key (the sk-svc_ secret is returned once)", tags, security: session },
      },
    )
    .get("", ({ principal, query }) => bareArray(listKeys(ctx, principal.accountId, query.include_revoked === "true")), {
      query: t.Object({ include_revoked: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])) }),
      detail: { summary: "The account's keys: prefixes, metadata, subtree spend this month (bare array)", tags, security: session },
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        const revoked = revokeKey(ctx, principal.accountId, params.id);
        return { id: params.id, revoked: revoked.length > 0, revoked_keys: revoked };
      },
      { params: t.Object({ id: t.String() }), detail: { summary: "Revoke a key and every key delegated below it", tags, security: session } },
    )
    .post(
      "/:id/rotate",
      ({ principal, params, set }) => {
        const minted = rotateKey(ctx, principal.accountId, params.id);
        set.status = 201;
        return { ...minted.view, key: minted.key, replaces: params.id, old_key_valid_until: new Date(ctx.clock.now() + ctx.config.keys.rotation_grace_secs * 1000).toISOString() };
      },
      { params: t.Object({ id: t.String() }), detail: { summary: "Replace a key; the old secret works as the new key for the grace window", tags, security: session } },
    )
    .post("/:id/unfreeze", ({ principal, params }) => unfreezeKey(ctx, principal.accountId, params.id), {
      params: t.Object({ id: t.String() }),
      detail: { summary: "Lift a circuit-breaker freeze", tags, security: session },
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
        body: t.Object(
          {
            name: t.Optional(Nullable(Name)),
            scopes: t.Optional(Scopes),
            monthly_cap_micro_usd: t.Optional(Nullable(MicroUsd())),
            allowed_models: t.Optional(Nullable(Models)),
            allowed_services: t.Optional(Nullable(Models)),
            ...Expiry,
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Mint a bounded child of the calling key", tags, security: [{ apiKey: [] }] },
      },
    );

  return new Elysia().use(own).use(delegation);
}

/**
 * TypeBox models of the /v1/keys routes: closed request bodies (an unknown field is refused
 * and named, never stripped) and the exact shapes served (store.ts keyView), so the OpenAPI
 * document describes what is served. Elysia validates the responses too: a field added to
 * keyView must be added here.
 */
import type { TLiteral } from "@sinclair/typebox";
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { PRIVACY_TIERS, type PrivacyTier as Tier } from "../inference/index.ts";
import { ALL, SCOPES } from "./scopes.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

const SCOPE_NAMES = [ALL, ...Object.keys(SCOPES)].join(", ");

// Scope names are checked by parseScopes (scopes.ts), which names the field ("scopes") and lists the vocabulary.
export const Scopes = t.Array(t.String({ minLength: 1, maxLength: 40 }), {
  maxItems: 32,
  description: `scope names (docs/scopes.md): ${SCOPE_NAMES}; ["*"] or absent: every scope; "*" is given alone`,
});
const Name = t.String({ minLength: 1, maxLength: 100 });
const Within = (what: string) =>
  t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 100, description: `the only ${what} the key may use, within the parent key's list; absent or null: the parent's` });

// One literal per tier; typed as one literal of the Tier union so its static type is Tier.
const tierLiterals = () => PRIVACY_TIERS.map((tier) => t.Literal(tier)) as unknown as [TLiteral<Tier>];
const TIER_DESCRIPTION = "the privacy tier inference calls with this key ask for unless they set svc_privacy_tier; null: standard (docs/inference.md)";

/**
 * null sits inside the union, not around it (Nullable): the OpenAPI generator folds a nullable
 * union of literals into {type: [string, null], enum: [...]} without null in the enum, which
 * would refuse the null a key without a tier is served with.
 */
export const NullablePrivacyTier = t.Union([...tierLiterals(), t.Null()], { description: TIER_DESCRIPTION });

/** expires_at (RFC 3339, in the future) or expires_in_secs, not both (routes.ts expiry() checks the pair). */
const Expiry = {
  expires_at: t.Optional(Nullable(t.String({ format: "date-time", description: "RFC 3339, in the future; not with expires_in_secs" }))),
  expires_in_secs: t.Optional(Int({ minimum: 60, maximum: 10 * 365 * 86_400, description: "seconds from now; not with expires_at" })),
};

export const MintBody = t.Object(
  {
    name: t.Optional(Nullable(Name)),
    scopes: t.Optional(Scopes),
    monthly_cap_micro_usd: t.Optional(Nullable(MicroUsd())),
    privacy_tier: t.Optional(NullablePrivacyTier),
    breaker_micro_usd_per_minute: t.Optional(Nullable(MicroUsd({ description: "spend per rolling minute that freezes the key; 0 turns the breaker off; absent: the deployment default" }))),
    ...Expiry,
  },
  closed,
);

export const DelegateBody = t.Object(
  {
    name: t.Optional(Nullable(Name)),
    scopes: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 40 }), { maxItems: 32, description: `scope names (docs/scopes.md): ${SCOPE_NAMES}; within the parent key's; absent: the parent's` })),
    monthly_cap_micro_usd: t.Optional(Nullable(MicroUsd({ description: "at most what the parent key has left this month; absent: that remainder (when the parent has a cap)" }))),
    allowed_models: t.Optional(Nullable(Within("models"))),
    allowed_services: t.Optional(Nullable(Within("services"))),
    ...Expiry,
  },
  closed,
);

export const ListQuery = t.Object({ include_revoked: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])) });

export const FreezeBody = t.Object(
  { reason: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Null()], { description: "shown as frozen_reason; default \"frozen by the account owner\"" })) },
  { additionalProperties: false },
);

export const KeyParams = t.Object({ id: t.String() });

export const KeyKind = t.Union([t.Literal("standard"), t.Literal("delegated"), t.Literal("mandate"), t.Literal("ghost")]);

export const KeyStatus = t.Union([t.Literal("active"), t.Literal("frozen"), t.Literal("expired"), t.Literal("revoked"), t.Literal("rotated")], {
  description: "revoked, then rotated, then expired, then frozen, else active",
});

const keyFields = {
  id: t.String(),
  prefix: t.String({ description: "the first characters of the secret, to recognise it" }),
  name: Nullable(t.String()),
  kind: KeyKind,
  status: KeyStatus,
  parent_id: Nullable(t.String()),
  depth: Int({ minimum: 0, description: "0 for a key minted by a person; one more per delegation" }),
  scopes: t.Array(t.String()),
  monthly_cap_micro_usd: Nullable(MicroUsd()),
  total_cap_micro_usd: Nullable(MicroUsd({ description: "a lifetime cap (a mandate's budget, a ghost's)" })),
  breaker_micro_usd_per_minute: Nullable(MicroUsd({ description: "null: the deployment default; 0: off" })),
  spent_this_month_micro_usd: MicroUsd({ description: "this key and every key delegated below it, this UTC month" }),
  held_micro_usd: MicroUsd({ description: "reserved for work in flight" }),
  total_spent_micro_usd: MicroUsd(),
  allowed_models: Nullable(t.Array(t.String())),
  allowed_services: Nullable(t.Array(t.String())),
  privacy_tier: NullablePrivacyTier,
  not_before: Nullable(Time),
  expires_at: Nullable(Time),
  frozen_at: Nullable(Time),
  frozen_reason: Nullable(t.String()),
  revoked_at: Nullable(Time),
  rotated_to: Nullable(t.String()),
  grace_until: Nullable(Time),
  created_at: Time,
};

/** What the API shows of a key: never the secret. */
export const Key = t.Object(keyFields, closed);

const Secret = t.String({ pattern: "^sk-svc_", description: "the sk-svc_ secret; shown this once" });

export const MintedKey = t.Object({ ...keyFields, key: Secret }, closed);

export const RotatedKey = t.Object(
  {
    ...keyFields,
    key: Secret,
    replaces: t.String({ description: "the rotated key's id" }),
    old_key_valid_until: t.String({ format: "date-time", description: "the old secret works, as this key, until then" }),
  },
  closed,
);

export const Revoked = t.Object(
  {
    id: t.String(),
    revoked: t.Boolean({ description: "false when the key was already revoked (nothing changed)" }),
    revoked_keys: t.Array(t.String(), { description: "the key and every key delegated below it that this call revoked" }),
  },
  closed,
);

/**
 * TypeBox models of the /v1/legacy routes: closed request bodies (an unknown field is refused
 * and named, never stripped) and the exact shapes served (views.ts), so the OpenAPI document
 * describes what is served. Bounds come from limits.ts and config.ts; docs/legacy.md explains them.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import {
  CUSTODY,
  HISTORY_SHOWN,
  LIST_CAP,
  MAX_ATTESTERS,
  MAX_BENEFICIARIES,
  MAX_HOLD_S,
  MAX_INTERVAL_S,
  MAX_LABEL_CHARS,
  MAX_NAME_CHARS,
  MAX_OBJECTS,
  MAX_WARNING_S,
  MIN_HOLD_S,
  MIN_INTERVAL_S,
  MIN_WARNING_S,
} from "./limits.ts";

const closed = { additionalProperties: false } as const;

const ADDRESS_PATTERN = "^0x[0-9a-fA-F]{40}$";
const Address = (description: string) => t.String({ pattern: ADDRESS_PATTERN, error: "must be a 0x-prefixed 20-byte hex address", description });
/** No control characters: names and labels are shown to beneficiaries and attesters. */
const TEXT_PATTERN = "^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$";
const Text = (max: number, description: string) =>
  t.String({ minLength: 1, maxLength: max, pattern: TEXT_PATTERN, error: `must be 1-${max} characters, not all whitespace, without control characters`, description });
const Seconds = (min: number, max: number, description: string) => Int({ minimum: min, maximum: max, error: `must be a whole number of seconds from ${min} to ${max}`, description });

export const CreateBody = t.Object(
  {
    name: Text(MAX_NAME_CHARS, "shown to beneficiaries (on the claim link) and attesters"),
    checkin_interval_s: Seconds(MIN_INTERVAL_S, MAX_INTERVAL_S, "the longest the owner may go without checking in: the deadline is the last check-in plus this"),
    warning_period_s: Seconds(MIN_WARNING_S, MAX_WARNING_S, "how long the plan stays in warning after a missed deadline before it can be released"),
    attesters: t.Optional(
      t.Array(Address("an attester's wallet: whoever signs in to svc with it attests; not one of the owner's own wallets"), {
        maxItems: MAX_ATTESTERS,
        description: `0-${MAX_ATTESTERS} distinct wallets whose confirmations a release waits for (a brake, never the timer)`,
      }),
    ),
    attesters_required: t.Optional(Int({ minimum: 1, maximum: MAX_ATTESTERS, description: "confirmations a release waits for, 1 to the number of attesters; default 1 (with attesters)" })),
    max_hold_s: t.Optional(Seconds(MIN_HOLD_S, MAX_HOLD_S, "with attesters: how long past the warning a release waits for their confirmations before it goes ahead anyway; default legacy.default_max_hold_secs")),
    beneficiaries: t.Array(
      t.Object(
        {
          wallet: t.Optional(Address("the beneficiary's wallet: opening the plan then needs a session of the account holding it (the claim link alone is not enough)")),
          label: t.Optional(Text(MAX_LABEL_CHARS, "for the owner's list; never shown on the claim link")),
        },
        closed,
      ),
      { minItems: 1, maxItems: MAX_BENEFICIARIES, description: `1-${MAX_BENEFICIARIES}; each gets a claim link whose token is shown once` },
    ),
  },
  closed,
);

export const ContentBody = t.Object(
  {
    objects: t.Array(
      t.Object(
        {
          name: Text(MAX_NAME_CHARS, "the object's name, shown to beneficiaries who opened the plan (metadata, stored in clear)"),
          content_b64: t.String({ description: "the bytes, base64 (standard or URL-safe alphabet)" }),
        },
        closed,
      ),
      { maxItems: MAX_OBJECTS, description: `0-${MAX_OBJECTS} objects replacing the whole content; decoded bytes together at most legacy.max_content_bytes` },
    ),
  },
  closed,
);

export const OpenBody = t.Object(
  { token: t.Optional(t.String({ maxLength: 200, description: "the beneficiary's claim token (lgc_…): required for a beneficiary without a wallet" })) },
  closed,
);

export const PlanParams = t.Object({ id: t.String({ maxLength: 100, description: "lgp_… id" }) });
export const ClaimParams = t.Object({ plan_id: t.String({ maxLength: 100, description: "lgp_… id" }) });
export const ObjectParams = t.Object({ plan_id: t.String({ maxLength: 100, description: "lgp_… id" }), object_id: t.String({ maxLength: 100, description: "lgo_… id" }) });
// No pattern or length: a malformed token is as unknown as a wrong one (404, not 400).
export const TokenParams = t.Object({ token: t.String({ description: "the claim token (lgc_…) from the claim link" }) });

const Time = t.String({ format: "date-time" });

export const PlanStatus = t.Union([t.Literal("active"), t.Literal("warning"), t.Literal("released"), t.Literal("claimed"), t.Literal("cancelled")], {
  description: "active (deadline ahead); warning (deadline missed); released (beneficiaries may open it); claimed (a beneficiary opened it); cancelled (content destroyed)",
});

const ObjectMeta = t.Object({ id: t.String(), name: t.String(), bytes: Int({ minimum: 0 }) }, closed);

export const Plan = t.Object(
  {
    id: t.String(),
    name: t.String(),
    status: PlanStatus,
    checkin_interval_s: Int({ minimum: 1 }),
    warning_period_s: Int({ minimum: 1 }),
    last_checkin_at: Time,
    deadline_at: Time,
    warning_started_at: Nullable(Time),
    warning_ends_at: Nullable(Time),
    hold_until: Nullable(t.String({ format: "date-time", description: "with attesters, in warning: the latest a release waits for their confirmations" })),
    released_at: Nullable(Time),
    release_reason: Nullable(t.Union([t.Literal("timer"), t.Literal("attesters"), t.Literal("hold_expired")])),
    claimed_at: Nullable(Time),
    cancelled_at: Nullable(Time),
    attesters: t.Array(t.Object({ wallet: t.String(), confirmed: t.Boolean({ description: "confirmed in the current warning" }) }, closed)),
    attesters_required: Int({ minimum: 0, description: "0: no attesters, no brake" }),
    confirmations: Int({ minimum: 0 }),
    max_hold_s: Nullable(Int({ minimum: 1 })),
    beneficiaries: t.Array(
      t.Object({ id: t.String(), label: Nullable(t.String()), wallet: Nullable(t.String()), claimed_at: Nullable(Time), link_active: t.Boolean({ description: "false once the plan was cancelled" }) }, closed),
    ),
    objects: t.Array(ObjectMeta),
    content_bytes: Int({ minimum: 0 }),
    content_available: t.Boolean({ description: "false once cancelled (ciphertexts destroyed)" }),
    content_updated_at: Nullable(Time),
    created_at: Time,
  },
  closed,
);

export const PlanDetail = t.Object(
  {
    ...Plan.properties,
    history: t.Array(t.Object({ at: Time, event: t.String(), detail: t.Record(t.String(), t.Unknown()) }, closed), {
      maxItems: HISTORY_SHOWN,
      description: `what happened to the plan, oldest first (the newest ${HISTORY_SHOWN}); content-free, kept after cancellation`,
    }),
  },
  closed,
);

export const CreatedPlan = t.Object(
  {
    plan: Plan,
    claim_links: t.Array(
      t.Object(
        {
          beneficiary_id: t.String(),
          label: Nullable(t.String()),
          wallet: Nullable(t.String()),
          token: t.String({ pattern: "^lgc_", description: "shown this once (svc keeps only its sha256); give it to the beneficiary" }),
          url: t.String({ description: "GET it to see the plan's name and the link's status (public)" }),
        },
        closed,
      ),
    ),
  },
  closed,
);

export const PlanList = t.Object(
  {
    plans: t.Array(Plan, { maxItems: LIST_CAP, description: `newest first, at most ${LIST_CAP}` }),
    max_active_plans: Int({ minimum: 1, description: "plans the account may hold that are not yet claimed or cancelled (legacy.max_active_plans)" }),
    custody: t.Literal(CUSTODY, { description: "how the content is held: sealed at rest with this deployment's master key, so its operator could open it (docs/legacy.md)" }),
  },
  closed,
);

export const AttestingPlan = t.Object(
  {
    id: t.String(),
    name: t.String(),
    owner_wallet: Nullable(t.String({ description: "the owner's first wallet, so the attester knows whose plan it is" })),
    status: PlanStatus,
    deadline_at: Time,
    warning_started_at: Nullable(Time),
    warning_ends_at: Nullable(Time),
    hold_until: Nullable(Time),
    attesters_required: Int({ minimum: 1 }),
    confirmations: Int({ minimum: 0 }),
    confirmed_by_you: t.Boolean(),
    confirmed_at: Nullable(Time),
  },
  closed,
);

export const AttestingList = t.Object({ plans: t.Array(AttestingPlan, { maxItems: LIST_CAP, description: `newest first, at most ${LIST_CAP}; cancelled plans left out` }) }, closed);

export const Claim = t.Object(
  {
    plan_id: t.String(),
    plan_name: t.String(),
    beneficiary_id: t.String(),
    status: t.Union([t.Literal("released"), t.Literal("claimed")], { description: "this beneficiary's: released (may open) or claimed (opened)" }),
    wallet_required: t.Boolean(),
    released_at: Time,
    claimed_at: Nullable(Time),
    objects: t.Array(ObjectMeta, { description: "once opened by this account: the objects to fetch; empty before" }),
  },
  closed,
);

export const ClaimList = t.Object({ claims: t.Array(Claim, { maxItems: LIST_CAP, description: `newest first, at most ${LIST_CAP}` }) }, closed);

export const Opened = t.Object(
  {
    plan_id: t.String(),
    plan_name: t.String(),
    beneficiary_id: t.String(),
    claimed_at: Time,
    objects: t.Array(ObjectMeta),
  },
  closed,
);

export const ObjectBytes = t.Object({ id: t.String(), name: t.String(), bytes: Int({ minimum: 0 }), content_b64: t.String({ description: "the bytes, base64 (standard alphabet)" }) }, closed);

export const ClaimLink = t.Object(
  {
    plan_name: t.String(),
    wallet_required: t.Boolean({ description: "true: open it signed in with the beneficiary's wallet; false: the token is the credential" }),
    status: t.Union([t.Literal("waiting"), t.Literal("released"), t.Literal("claimed")], {
      description: "waiting (not released: the owner's check-in state is not told); released (may be opened); claimed (this link's beneficiary opened it)",
    }),
  },
  closed,
);

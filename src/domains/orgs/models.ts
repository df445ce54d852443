/**
 * TypeBox models of the org routes: closed request bodies (an unknown field is refused and
 * named, never stripped) and the response shapes the OpenAPI document shows, closed too: what
 * is listed is what is served.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import { INVITE_TTL_SECS } from "./invites.ts";
import { NAME_MAX } from "./service.ts";

const closed = { additionalProperties: false } as const;

export const RoleSchema = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")], {
  error: "must be one of owner, admin, member",
});

/** What service.ts cleanName checks, said here too: not blank, no control characters. */
const Name = t.String({
  minLength: 1,
  maxLength: NAME_MAX,
  pattern: "^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$",
  error: `must be 1–${NAME_MAX} characters, not blank, without control characters`,
  description: `1–${NAME_MAX} characters; surrounding whitespace is trimmed`,
});

const ADDRESS_PATTERN = "^0x[0-9a-fA-F]{40}$";
const ADDRESS_REASON = "must be a 0x-prefixed 20-byte hex address";
/** An address as served: EIP-55 checksummed. Taken in any letter case (what auth's normalizeAddress checks). */
const Address = (description = "0x address, EIP-55 checksummed") => t.String({ pattern: ADDRESS_PATTERN, description });

export const OrgBody = t.Object({ name: Name }, closed);

export const RoleBody = t.Object({ role: RoleSchema }, closed);

export const InviteBody = t.Object(
  {
    role: RoleSchema,
    wallet_address: t.Optional(
      t.Union([t.String({ pattern: ADDRESS_PATTERN }), t.Null()], { error: ADDRESS_REASON, description: "0x address (any letter case); omit (or null) for a one-time link" }),
    ),
    expires_in_secs: t.Optional(
      Int({
        minimum: INVITE_TTL_SECS.min,
        maximum: INVITE_TTL_SECS.max,
        default: INVITE_TTL_SECS.default,
        error: `must be a whole number of seconds from ${INVITE_TTL_SECS.min} to ${INVITE_TTL_SECS.max}`,
      }),
    ),
  },
  closed,
);

export const TokenBody = t.Object({ token: t.String({ minLength: 1, maxLength: 200, description: "the inv_… secret of a link invite" }) }, closed);

export const OrgParams = t.Object({ id: t.String() });
export const MemberParams = t.Object({ id: t.String(), account_id: t.String() });
export const OrgInviteParams = t.Object({ id: t.String(), invite_id: t.String() });
export const InviteParams = t.Object({ invite_id: t.String() });

const Time = t.String({ format: "date-time" });

export const Org = t.Object(
  {
    id: t.String(),
    name: t.String(),
    role: RoleSchema, // the caller's
    member_count: Int({ minimum: 1 }),
    created_at: Time,
    updated_at: Time,
  },
  closed,
);

export const Member = t.Object(
  { account_id: t.String(), role: RoleSchema, wallet: Nullable(Address("the member's first linked wallet, EIP-55 checksummed")), joined_at: Time },
  closed,
);

const inviteFields = {
  id: t.String(),
  org_id: t.String(),
  kind: t.Union([t.Literal("wallet"), t.Literal("link")]),
  role: RoleSchema,
  wallet_address: Nullable(Address("EIP-55 checksummed; null for a link invite")),
  created_by: t.String(),
  created_at: Time,
  expires_at: Time,
};

export const Invite = t.Object(inviteFields, closed);

export const CreatedInvite = t.Object(
  { ...inviteFields, token: t.Optional(t.String({ pattern: "^inv_", description: "link invites only: the secret to pass on, shown once" })) },
  closed,
);

export const MyInvite = t.Object(
  {
    id: t.String(),
    org_id: t.String(),
    org_name: t.String(),
    role: RoleSchema,
    wallet_address: Address(),
    created_at: Time,
    expires_at: Time,
  },
  closed,
);

export const InviteDeclined = t.Object({ id: t.String(), declined: t.Literal(true) }, closed);
export const InviteRevoked = t.Object({ id: t.String(), revoked: t.Literal(true) }, closed);
export const OrgDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);
export const OrgLeft = t.Object({ org_id: t.String(), left: t.Literal(true) }, closed);
export const MemberRemoved = t.Object({ org_id: t.String(), account_id: t.String(), removed: t.Literal(true) }, closed);

/**
 * TypeBox models of the org routes: closed request bodies (an unknown field is refused and
 * named, never stripped) and the response shapes the OpenAPI document shows.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import { INVITE_TTL_SECS } from "./invites.ts";
import { NAME_MAX } from "./service.ts";

const closed = { additionalProperties: false } as const;

export const RoleSchema = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")], {
  error: "must be one of owner, admin, member",
});

const Name = t.String({ minLength: 1, maxLength: NAME_MAX, description: `1–${NAME_MAX} characters; surrounding whitespace is trimmed` });

export const OrgBody = t.Object({ name: Name }, closed);

export const RoleBody = t.Object({ role: RoleSchema }, closed);

export const InviteBody = t.Object(
  {
    role: RoleSchema,
    wallet_address: t.Optional(Nullable(t.String({ maxLength: 100, description: "0x address; omit (or null) for a one-time link" }))),
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

export const Org = t.Object({
  id: t.String(),
  name: t.String(),
  role: RoleSchema,
  member_count: Int(),
  created_at: Time,
  updated_at: Time,
});

export const Member = t.Object({ account_id: t.String(), role: RoleSchema, wallet: Nullable(t.String()), joined_at: Time });

export const Invite = t.Object({
  id: t.String(),
  org_id: t.String(),
  kind: t.Union([t.Literal("wallet"), t.Literal("link")]),
  role: RoleSchema,
  wallet_address: Nullable(t.String()),
  created_by: t.String(),
  created_at: Time,
  expires_at: Time,
});

export const CreatedInvite = t.Composite([Invite, t.Object({ token: t.Optional(t.String({ description: "link invites only; shown once" })) })]);

export const MyInvite = t.Object({
  id: t.String(),
  org_id: t.String(),
  org_name: t.String(),
  role: RoleSchema,
  wallet_address: t.String(),
  created_at: Time,
  expires_at: Time,
});

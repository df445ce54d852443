/** Request and response shapes of the console's own JSON answers (routes.ts). */
import { t } from "elysia";

const closed = { additionalProperties: false } as const;

export const ConsoleSession = t.Object(
  {
    account_id: t.Union([t.String(), t.Null()], { description: "the signed-in account; null: no live session cookie" }),
    csrf_token: t.Union([t.String(), t.Null()], { description: "X-CSRF-Token for writes carried by the session cookie" }),
    operator: t.Union([t.Object({ csrf_token: t.String({ description: "X-CSRF-Token for admin writes carried by the operator cookie" }) }, closed), t.Null()]),
    admin_configured: t.Boolean({ description: "an admin token is configured (the operator pages can be used)" }),
    passkeys: t.Boolean({ description: "passkey sign-in is configured" }),
    public_url: t.String(),
  },
  closed,
);

export const OperatorSignInBody = t.Object({ admin_token: t.String({ minLength: 1, maxLength: 512 }) }, closed);

export const OperatorState = t.Object({ operator: t.Union([t.Object({ csrf_token: t.String() }, closed), t.Null()]) }, closed);

export const EmptyBody = t.Object({}, closed);

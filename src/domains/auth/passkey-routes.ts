/**
 * /v1/auth/passkey/* and /v1/auth/passkeys: WebAuthn sign-in (public) and the account's
 * passkeys (session). Mounted only when passkeys are configured (app.ts); the rules live in
 * passkeys.ts.
 *
 * The WebAuthn response objects are browser-made, and browsers add fields over time, so their
 * schemas are open: they check what svc reads and let the rest through to the library.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { Elysia, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import { clientAddress } from "../../core/ratelimit.ts";
import { Nullable } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { deletePasskey, listPasskeys, loginOptions, registerPasskey, registrationOptions, renamePasskey, signInWithPasskey } from "./passkeys.ts";
import { SESSION_COOKIE, sessionCookie, sessionResponse } from "./sessions.ts";

const Base64Url = (maxLength: number) =>
  t.String({ minLength: 1, maxLength, pattern: "^[A-Za-z0-9_-]+={0,2}$", error: `must be a base64url string of at most ${maxLength} characters` });

const open = { additionalProperties: true };
const closed = { additionalProperties: false };

/** The fields every PublicKeyCredential.toJSON() has; clientExtensionResults may be left out. */
const credentialFields = {
  id: Base64Url(1024),
  rawId: Base64Url(1024),
  type: t.Literal("public-key", { error: 'must be "public-key"' }),
  clientExtensionResults: t.Optional(t.Object({}, open)),
};

const RegistrationResponse = t.Object(
  {
    ...credentialFields,
    response: t.Object(
      {
        clientDataJSON: Base64Url(16_384),
        attestationObject: Base64Url(262_144),
        transports: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 32 }), { maxItems: 16 })),
      },
      open,
    ),
  },
  { ...open, description: "PublicKeyCredential.toJSON() from navigator.credentials.create()" },
);

const AuthenticationResponse = t.Object(
  {
    ...credentialFields,
    response: t.Object(
      {
        clientDataJSON: Base64Url(16_384),
        authenticatorData: Base64Url(16_384),
        signature: Base64Url(2_048),
        userHandle: t.Optional(Nullable(t.String({ maxLength: 256 }))),
      },
      open,
    ),
  },
  { ...open, description: "PublicKeyCredential.toJSON() from navigator.credentials.get()" },
);

const Name = t.String({ minLength: 1, maxLength: 64, description: "a label for the owner, e.g. the device" });
const EmptyBody = t.Optional(t.Object({}, closed));
const PasskeyId = t.Object({ id: t.String({ maxLength: 100 }) });

const tags = ["auth"];
const session = [{ session: [] }];

export function passkeyRoutes(ctx: Context) {
  const signIn = new Elysia({ prefix: "/v1/auth/passkey" })
    .use(guards.public(ctx))
    .post("/login/options", () => loginOptions(ctx), {
      body: EmptyBody,
      detail: { summary: "Options for navigator.credentials.get() (discoverable passkeys; the challenge lives 5 minutes, single use)", tags },
    })
    .post(
      "/login/verify",
      async ({ body, request, server, cookie }) => {
        const { clientExtensionResults = {}, ...rest } = body.response;
        const response = { ...rest, clientExtensionResults, response: { ...rest.response, userHandle: rest.response.userHandle ?? undefined } };
        const issued = await signInWithPasskey(ctx, response as AuthenticationResponseJSON, {
          userAgent: request.headers.get("user-agent"),
          ip: clientAddress(request, server?.requestIP(request)?.address, ctx.config.trust_proxy),
        });
        cookie[SESSION_COOKIE]!.set(sessionCookie(ctx, issued));
        return sessionResponse(issued, false);
      },
      {
        body: t.Object({ response: AuthenticationResponse }, closed),
        detail: { summary: "Sign in with a passkey; returns a sess_ token and sets the svc_session cookie (never creates an account)", tags },
      },
    );

  const manage = new Elysia({ prefix: "/v1/auth" })
    .use(guards.session(ctx))
    .post("/passkey/register/options", ({ principal }) => registrationOptions(ctx, principal.accountId), {
      body: EmptyBody,
      detail: { summary: "Options for navigator.credentials.create() for this account (the challenge lives 5 minutes, single use)", tags, security: session },
    })
    .post(
      "/passkey/register/verify",
      async ({ principal, body, set }) => {
        const { clientExtensionResults = {}, ...rest } = body.response;
        const passkey = await registerPasskey(ctx, principal.accountId, {
          response: { ...rest, clientExtensionResults } as RegistrationResponseJSON,
          name: body.name,
        });
        set.status = 201;
        return passkey;
      },
      {
        body: t.Object({ response: RegistrationResponse, name: t.Optional(Name) }, closed),
        detail: { summary: `Register the passkey the browser created (at most 20 per account)`, tags, security: session },
      },
    )
    .get("/passkeys", ({ principal }) => bareArray(listPasskeys(ctx, principal.accountId)), {
      detail: { summary: "The account's passkeys (bare array)", tags, security: session },
    })
    .patch("/passkeys/:id", ({ principal, params, body }) => renamePasskey(ctx, principal.accountId, params.id, body.name), {
      params: PasskeyId,
      body: t.Object({ name: Name }, closed),
      detail: { summary: "Rename a passkey", tags, security: session },
    })
    .delete(
      "/passkeys/:id",
      ({ principal, params }) => {
        deletePasskey(ctx, principal.accountId, params.id);
        return { id: params.id, deleted: true };
      },
      { params: PasskeyId, detail: { summary: "Remove a passkey (it can no longer sign in)", tags, security: session } },
    );

  return new Elysia().use(signIn).use(manage);
}

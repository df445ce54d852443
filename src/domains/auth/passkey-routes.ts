/**
 * /v1/auth/passkey/* and /v1/auth/passkeys: WebAuthn sign-in (public) and the account's
 * passkeys (session). Mounted only when passkeys are configured (app.ts); the rules live in
 * passkeys.ts, the schemas in models.ts.
 *
 * The WebAuthn response objects are browser-made, and browsers add fields over time, so their
 * schemas are open: they check what svc reads and let the rest through to the library.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { Elysia, type Static, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import { clientAddress } from "../../core/ratelimit.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { deletePasskey, listPasskeys, loginOptions, registerPasskey, registrationOptions, renamePasskey, signInWithPasskey } from "./passkeys.ts";
import { SESSION_COOKIE, sessionCookie, sessionResponse } from "./sessions.ts";

const tags = ["auth"];
const session = [{ session: [] }];

export function passkeyRoutes(ctx: Context) {
  const signIn = new Elysia({ prefix: "/v1/auth/passkey" })
    .use(guards.public(ctx))
    // The library types its options loosely (every member optional); these are the ones it fills,
    // and the response schema checks that on every answer.
    .post("/login/options", () => loginOptions(ctx) as Promise<Static<typeof M.LoginOptions>>, {
      body: M.EmptyBody,
      response: { 200: M.LoginOptions },
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
        body: M.LoginVerifyBody,
        // 401 invalid_passkey (one answer for every reason), 403 account_suspended.
        response: { 200: M.IssuedSession, ...errors(401) },
        detail: { summary: "Sign in with a passkey; returns a sess_ token and sets the svc_session cookie (never creates an account)", tags },
      },
    );

  const manage = new Elysia({ prefix: "/v1/auth" })
    .use(guards.session(ctx))
    .post("/passkey/register/options", ({ principal }) => registrationOptions(ctx, principal.accountId) as Promise<Static<typeof M.RegistrationOptions>>, {
      body: M.EmptyBody,
      response: { 200: M.RegistrationOptions, ...errors(409) }, // 409 passkey_limit_reached
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
        body: M.RegisterVerifyBody,
        // 400 invalid_passkey_registration; 409 passkey_limit_reached, passkey_already_registered.
        response: { 201: M.Passkey, ...errors(409) },
        detail: { summary: `Register the passkey the browser created (at most 20 per account)`, tags, security: session },
      },
    )
    .get("/passkeys", ({ principal }) => bareArray(listPasskeys(ctx, principal.accountId)), {
      response: { 200: t.Array(M.Passkey) },
      detail: { summary: "The account's passkeys (bare array)", tags, security: session },
    })
    .patch("/passkeys/:id", ({ principal, params, body }) => renamePasskey(ctx, principal.accountId, params.id, body.name), {
      params: M.PasskeyParams,
      body: M.RenamePasskeyBody,
      response: { 200: M.Passkey },
      detail: { summary: "Rename a passkey", tags, security: session },
    })
    .delete(
      "/passkeys/:id",
      ({ principal, params }) => {
        deletePasskey(ctx, principal.accountId, params.id);
        return { id: params.id, deleted: true as const };
      },
      { params: M.PasskeyParams, response: { 200: M.PasskeyDeleted }, detail: { summary: "Remove a passkey (it can no longer sign in)", tags, security: session } },
    );

  return new Elysia().use(signIn).use(manage);
}

/**
 * /v1/auth/*: sign-in (nonce, verify), capabilities, and the session's own management
 * (me, logout, sessions, wallets). Passkey routes live in passkey-routes.ts, mounted only
 * when passkeys are configured.
 */
import { Elysia, t } from "elysia";
import { isoTime } from "../../core/clock.ts";
import { bareArray } from "../../core/envelopes.ts";
import { clientAddress } from "../../core/ratelimit.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { getAccount } from "../accounts/index.ts";
import * as M from "./models.ts";
import { clearedSessionCookie, getSession, listSessions, revokeAllSessions, revokeSession, SESSION_COOKIE, sessionCookie, sessionResponse } from "./sessions.ts";
import { linkStatement, linkWallet, signInWithEthereum } from "./signin.ts";
import { issueNonce } from "./siwe.ts";
import { listWallets, primaryWallet, removeWallet } from "./wallets.ts";

const tags = ["auth"];
const session = [{ session: [] }];

export function authRoutes(ctx: Context) {
  const passkeysOn = Boolean(ctx.config.passkeys.rp_id && ctx.config.passkeys.origin);

  const bootstrap = new Elysia({ prefix: "/v1/auth" })
    .use(guards.public(ctx))
    .post("/nonce", () => issueNonce(ctx), { response: { 200: M.Nonce }, detail: { summary: "A single-use SIWE nonce (5 minutes)", tags } })
    .post(
      "/verify",
      ({ body, request, server, cookie }) => {
        const { issued, accountCreated } = signInWithEthereum(ctx, body, {
          userAgent: request.headers.get("user-agent"),
          ip: clientAddress(request, server?.requestIP(request)?.address, ctx.config.trust_proxy),
        });
        cookie[SESSION_COOKIE]!.set(sessionCookie(ctx, issued));
        return sessionResponse(issued, accountCreated);
      },
      {
        body: M.SignedMessage,
        // 400 siwe_rejected (not EIP-4361), 401 siwe_rejected (refused), 403 account_suspended.
        response: { 200: M.IssuedSession, ...errors(401) },
        detail: { summary: "Sign in with a signed SIWE message; returns a sess_ token and sets the svc_session cookie", tags },
      },
    )
    .get("/capabilities", () => ({ siwe: true, passkey: passkeysOn, session_cookie: true }), {
      response: { 200: M.Capabilities },
      detail: { summary: "Which sign-in methods this deployment offers", tags },
    });

  const manage = new Elysia({ prefix: "/v1/auth" })
    .use(guards.session(ctx))
    .get(
      "/me",
      ({ principal }) => {
        const account = getAccount(ctx, principal.accountId);
        const current = getSession(ctx, principal.accountId, principal.sessionId);
        return {
          account_id: account.id,
          wallet_address: current.wallet_address ?? primaryWallet(ctx, account.id),
          wallets: listWallets(ctx, account.id).map((w) => w.address),
          created_at: account.created_at,
          session: { id: current.id, method: current.method, expires_at: current.expires_at },
        };
      },
      { response: { 200: M.Me }, detail: { summary: "Who the session belongs to", tags, security: session } },
    )
    .post(
      "/logout",
      ({ principal, cookie }) => {
        revokeSession(ctx, principal.accountId, principal.sessionId);
        cookie[SESSION_COOKIE]!.set(clearedSessionCookie(ctx));
        return { logged_out: true, session_id: principal.sessionId };
      },
      // 404: the session ended meanwhile (a concurrent logout).
      { response: { 200: M.LoggedOut, ...errors(404) }, detail: { summary: "End this session", tags, security: session } },
    )
    .get("/sessions", ({ principal }) => bareArray(listSessions(ctx, principal.accountId, principal.sessionId)), {
      response: { 200: t.Array(M.Session) },
      detail: { summary: "The account's live sessions (bare array; this one marked current)", tags, security: session },
    })
    .post(
      "/logout-all",
      ({ principal, cookie }) => {
        const revoked = revokeAllSessions(ctx, principal.accountId);
        cookie[SESSION_COOKIE]!.set(clearedSessionCookie(ctx));
        return { logged_out: true, revoked };
      },
      { response: { 200: M.LoggedOutAll }, detail: { summary: "End every session of the account, this one included", tags, security: session } },
    )
    .get("/wallets", ({ principal }) => bareArray(listWallets(ctx, principal.accountId)), {
      response: { 200: t.Array(M.Wallet) },
      detail: { summary: "The account's wallets (bare array)", tags, security: session },
    })
    .post(
      "/wallets",
      ({ principal, body, set }) => {
        const { wallet, added } = linkWallet(ctx, principal.accountId, body);
        set.status = added ? 201 : 200;
        return wallet;
      },
      {
        body: M.SignedMessage,
        // 200: already linked to this account; 201: newly linked. 409 wallet_taken.
        response: { 200: M.Wallet, 201: M.Wallet, ...errors(409) },
        detail: {
          summary: "Link another wallet: a SIWE message signed by it, whose statement names this account",
          description: `The statement must include "${linkStatement("<account_id>")}" with the signed-in account's id.`,
          tags,
          security: session,
        },
      },
    )
    .delete(
      "/wallets/:addr",
      ({ principal, params }) => {
        removeWallet(ctx, principal.accountId, params.addr);
        return { address: params.addr, removed: true, at: isoTime(ctx.clock.now()) };
      },
      {
        params: M.WalletParams,
        response: { 200: M.WalletRemoved, ...errors(409) }, // 409 last_wallet
        detail: { summary: "Unlink a wallet (not the last one)", tags, security: session },
      },
    );

  return new Elysia().use(bootstrap).use(manage);
}

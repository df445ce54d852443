/**
 * /console: the web console (docs/console.md). The page and its two files, and the two small
 * JSON answers only the console needs: what the browser is signed in as (with the CSRF tokens
 * its writes carry) and the operator sign-in. Everything else the console shows comes from the
 * public HTTP API, called same-origin with the svc_session cookie.
 *
 * In the OpenAPI document like every mounted route (tag console), though they are a user
 * interface rather than API: the page and files are not JSON, and the two JSON answers are
 * the console's own and may change with it.
 */
import { Elysia, t } from "elysia";
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { sha256Hex } from "../../core/secrets.ts";
import { errors } from "../../core/schemas.ts";
import { guards } from "../../guards.ts";
import { resolveSession, SESSION_COOKIE, sessionCsrfToken } from "../auth/index.ts";
import { type Asset, consoleAssets } from "./assets.ts";
import { OPERATOR_COOKIE, operatorOf, operatorSignIn, operatorSignOut } from "./operator.ts";
import * as M from "./models.ts";
import { SECURITY_HEADERS, shellHtml } from "./shell.ts";

const tags = ["console"];
const content = (type: string, description: string) => ({ 200: { description, content: { [type]: { schema: { type: "string" } } } } }) as never;
const page = { detail: { summary: "The console page (HTML; the app routes in the browser)", tags, responses: content("text/html", "the console page") } };

const API_HEADERS = { ...SECURITY_HEADERS, "cache-control": "no-store" };

function serveAsset(a: Asset, request: Request): Response {
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const headers: Record<string, string> = { ...SECURITY_HEADERS, "content-type": a.type, "cache-control": "public, max-age=31536000, immutable", vary: "accept-encoding" };
  if (gzip) headers["content-encoding"] = "gzip";
  return new Response(gzip ? a.gzip : a.body, { headers });
}

async function shell(): Promise<Response> {
  return new Response(shellHtml(await consoleAssets()), { headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });
}

/** The signed-in session behind a cookie value, or null (a bad or ended one is simply signed out). */
function sessionOf(ctx: Context, cookie: unknown) {
  if (typeof cookie !== "string" || !cookie) return null;
  try {
    return resolveSession(ctx, sha256Hex(cookie));
  } catch {
    return null;
  }
}

const cookieValue = (c: { value?: unknown } | undefined): string | undefined => (typeof c?.value === "string" ? c.value : undefined);

export function consoleRoutes(ctx: Context) {
  const secure = ctx.config.public_url.startsWith("https://");
  const pages = new Elysia({ prefix: "/console" })
    .get("", () => shell(), page)
    .get("/*", () => shell(), page)
    .get(
      "/assets/:name",
      async ({ params, request }) => {
        const a = (await consoleAssets()).byName.get(params.name);
        if (!a) throw notFound("console file");
        return serveAsset(a, request);
      },
      { detail: { summary: "A console file (script or stylesheet; content-hashed name, cached for a year)", tags, responses: content("text/javascript", "the script, or text/css for the stylesheet") } },
    )
    .get(
      "/api/session",
      ({ cookie, set }) => {
        Object.assign(set.headers, API_HEADERS);
        const session = sessionOf(ctx, cookie[SESSION_COOKIE]?.value);
        const operator = operatorOf(ctx, cookieValue(cookie[OPERATOR_COOKIE]));
        return {
          account_id: session?.accountId ?? null,
          csrf_token: session ? sessionCsrfToken(ctx, session.sessionId) : null,
          operator: operator ? { csrf_token: operator.csrf_token } : null,
          admin_configured: Boolean(ctx.config.admin.token_sha256),
          passkeys: Boolean(ctx.config.passkeys.rp_id && ctx.config.passkeys.origin),
          public_url: ctx.config.public_url,
        };
      },
      { response: { 200: M.ConsoleSession }, detail: { summary: "What this browser is signed in as, with the CSRF tokens its writes carry", tags } },
    );

  const operator = new Elysia({ prefix: "/console/api" })
    // Rate-limited per client like every public route: the admin token is guessed here or nowhere.
    .use(guards.public(ctx))
    .post(
      "/operator",
      ({ body, cookie, set }) => {
        Object.assign(set.headers, API_HEADERS);
        const { cookie: value, csrf_token } = operatorSignIn(ctx, body.admin_token);
        cookie[OPERATOR_COOKIE]!.set({ value, httpOnly: true, sameSite: "strict", secure, path: "/" });
        return { operator: { csrf_token } };
      },
      {
        body: M.OperatorSignInBody,
        // 401 invalid_admin_token.
        response: { 200: M.OperatorState, ...errors(401) },
        detail: { summary: "Operator sign-in: the admin token for an HttpOnly cookie standing for it until the browser closes", tags },
      },
    )
    .delete(
      "/operator",
      ({ cookie, set }) => {
        Object.assign(set.headers, API_HEADERS);
        operatorSignOut(ctx, cookieValue(cookie[OPERATOR_COOKIE]));
        cookie[OPERATOR_COOKIE]!.set({ value: "", httpOnly: true, sameSite: "strict", secure, path: "/", maxAge: 0 });
        return { operator: null };
      },
      { body: t.Optional(M.EmptyBody), response: { 200: M.OperatorState }, detail: { summary: "Operator sign-out", tags } },
    );

  return [pages, operator];
}

/**
 * The guard of every authentication class (spec §5), through HTTP: missing, malformed and wrong
 * credentials, the other classes' credentials, expiry, revocation and suspension.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { errorHandler } from "../../src/core/error-handler.ts";
import { silentLogger } from "../../src/core/log.ts";
import { setSuspended } from "../../src/domains/accounts/service.ts";
import { sessionCsrfToken } from "../../src/domains/auth/index.ts";
import { guards } from "../../src/guards.ts";
import { accountWithSession, apiKeyFor } from "../support/fixtures.ts";
import { ADMIN_TOKEN, bearer, type Harness, makeHarness, METRICS_TOKEN } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

/** A probe app: one route per class, answering with the principal the guard produced. */
function probe(h: Harness) {
  const app = new Elysia()
    .onError({ as: "global" }, errorHandler(silentLogger))
    .use(new Elysia().use(guards.session(h.ctx)).get("/session", ({ principal }) => principal).post("/session", ({ principal }) => principal))
    .use(new Elysia().use(guards.apiKey(h.ctx)).post("/key", ({ principal }) => principal))
    .use(new Elysia().use(guards.admin(h.ctx)).get("/admin", ({ principal }) => principal))
    .use(new Elysia().use(guards.metrics(h.ctx)).get("/metrics", ({ principal }) => principal))
    .use(new Elysia().use(guards.public(h.ctx)).get("/public", ({ principal }) => principal));
  return async (method: string, path: string, headers: Record<string, string> = {}) => {
    const res = await app.handle(new Request(`http://svc.test${path}`, { method, headers }));
    return { status: res.status, body: (await res.json()) as any, headers: res.headers };
  };
}

describe("session class", () => {
  test("a write carried by the cookie needs the session's X-CSRF-Token; a read or a Bearer write does not", async () => {
    h = makeHarness();
    const call = probe(h);
    const { session } = accountWithSession(h.ctx);
    const other = accountWithSession(h.ctx);
    const cookie = { cookie: `svc_session=${session.token}` };
    expect((await call("GET", "/session", cookie)).status).toBe(200);
    expect((await call("POST", "/session", bearer(session.token))).status).toBe(200);
    for (const csrf of [undefined, "", "x".repeat(43), sessionCsrfToken(h.ctx, other.session.id)]) {
      const r = await call("POST", "/session", csrf === undefined ? cookie : { ...cookie, "x-csrf-token": csrf });
      expect(r.status).toBe(403);
      expect(r.body.error.type).toBe("csrf_refused");
      expect(r.body.error.message).not.toContain(session.token);
    }
    expect((await call("POST", "/session", { ...cookie, "x-csrf-token": sessionCsrfToken(h.ctx, session.id) })).status).toBe(200);
  });

  test("accepts a live session by header or cookie; refuses missing, malformed, foreign, expired, revoked and suspended", async () => {
    h = makeHarness({ admin: true, metrics: true });
    const call = probe(h);
    const { account, session } = accountWithSession(h.ctx);
    expect((await call("GET", "/session", bearer(session.token))).body).toEqual({ kind: "session", accountId: account.id, sessionId: session.id });
    expect((await call("GET", "/session", { cookie: `svc_session=${session.token}` })).status).toBe(200);

    const missing = await call("GET", "/session");
    expect(missing.status).toBe(401);
    expect(missing.body.error.type).toBe("missing_credentials");
    expect(missing.headers.get("www-authenticate")).toContain("Bearer");
    expect((await call("GET", "/session", { authorization: "Basic abc" })).body.error.type).toBe("invalid_authorization");
    expect((await call("GET", "/session", { authorization: "Bearer" })).body.error.type).toBe("invalid_authorization");
    const key = apiKeyFor(h.ctx, account.id);
    const wrongClass = await call("GET", "/session", bearer(key.token));
    expect(wrongClass.status).toBe(401);
    expect(wrongClass.body.error).toMatchObject({ type: "wrong_credential_class" });
    expect(wrongClass.body.error.message).toContain("an API key");
    expect((await call("GET", "/session", bearer("sess_nottherealone"))).body.error.type).toBe("invalid_session");

    h.ctx.db.query("UPDATE sessions SET revoked_at = 1 WHERE id = ?").run(session.id);
    expect((await call("GET", "/session", bearer(session.token))).body.error.type).toBe("invalid_session");

    const other = accountWithSession(h.ctx);
    h.clock.advance(h.ctx.config.auth.session_idle_secs * 1000);
    expect((await call("GET", "/session", bearer(other.session.token))).body.error.type).toBe("session_expired");

    const third = accountWithSession(h.ctx);
    setSuspended(h.ctx, { accountId: third.account.id, suspended: true, reason: "abuse", actor: "cli" });
    const suspended = await call("GET", "/session", bearer(third.session.token));
    expect(suspended.status).toBe(403);
    expect(suspended.body.error.type).toBe("account_suspended");
    expect(JSON.stringify(suspended.body)).not.toContain(third.session.token);
  });
});

describe("API-key class", () => {
  test("accepts a live key; refuses missing, session tokens, unknown, revoked, expired and suspended", async () => {
    h = makeHarness();
    const call = probe(h);
    const { account, session } = accountWithSession(h.ctx);
    const key = apiKeyFor(h.ctx, account.id);
    expect((await call("POST", "/key", bearer(key.token))).body).toEqual({ kind: "api_key", accountId: account.id, keyId: key.id, scopes: ["*"] });
    expect((await call("POST", "/key")).body.error.type).toBe("missing_credentials");
    expect((await call("POST", "/key", bearer(session.token))).body.error.type).toBe("wrong_credential_class");
    expect((await call("POST", "/key", { cookie: `svc_session=${session.token}` })).body.error.type).toBe("missing_credentials");
    expect((await call("POST", "/key", bearer("sk-svc_unknown"))).body.error.type).toBe("invalid_api_key");
    const revoked = apiKeyFor(h.ctx, account.id, { revoked: true });
    expect((await call("POST", "/key", bearer(revoked.token))).body.error.type).toBe("api_key_revoked");
    const expiring = apiKeyFor(h.ctx, account.id, { expiresAt: h.clock.now() + 10 });
    expect((await call("POST", "/key", bearer(expiring.token))).status).toBe(200);
    h.clock.advance(10);
    expect((await call("POST", "/key", bearer(expiring.token))).body.error.type).toBe("api_key_expired");
    setSuspended(h.ctx, { accountId: account.id, suspended: true, actor: "cli" });
    expect((await call("POST", "/key", bearer(key.token))).body.error.type).toBe("account_suspended");
    setSuspended(h.ctx, { accountId: account.id, suspended: false, actor: "cli" });
    expect((await call("POST", "/key", bearer(key.token))).status).toBe(200);
  });
});

describe("admin and metrics classes", () => {
  test("each takes only its own token", async () => {
    h = makeHarness({ admin: true, metrics: true });
    const call = probe(h);
    expect((await call("GET", "/admin", bearer(ADMIN_TOKEN))).body).toEqual({ kind: "admin" });
    expect((await call("GET", "/metrics", bearer(METRICS_TOKEN))).body).toEqual({ kind: "metrics" });
    expect((await call("GET", "/admin")).status).toBe(401);
    const wrong = await call("GET", "/admin", bearer(METRICS_TOKEN));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe("invalid_admin_token");
    expect((await call("GET", "/metrics", bearer(ADMIN_TOKEN))).body.error.type).toBe("invalid_metrics_token");
    expect((await call("GET", "/admin", { authorization: `Token ${ADMIN_TOKEN}` })).body.error.type).toBe("invalid_authorization");
    expect((await call("GET", "/admin", { authorization: `bearer ${ADMIN_TOKEN}` })).status).toBe(200);
  });
});

describe("public class", () => {
  test("rate limits per client with 429, Retry-After and retry_after_secs", async () => {
    h = makeHarness({ config: (c) => Object.assign(c, { trust_proxy: true, rate_limit: { public_per_minute: 60, public_burst: 2 } }) });
    const call = probe(h);
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    expect((await call("GET", "/public", from("198.51.100.1"))).body).toEqual({ kind: "public", client: "198.51.100.1" });
    expect((await call("GET", "/public", from("198.51.100.1"))).status).toBe(200);
    const limited = await call("GET", "/public", from("198.51.100.1"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.body.error).toMatchObject({ type: "rate_limited", retry_after_secs: 1 });
    expect((await call("GET", "/public", from("198.51.100.2"))).status).toBe(200);
    h.clock.advance(1000);
    expect((await call("GET", "/public", from("198.51.100.1"))).status).toBe(200);
  });
});

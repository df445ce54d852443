/**
 * The console's server side through HTTP: the page and its files (CSP and the other security
 * headers, content-hashed names, gzip, caching), what /console/api/session tells a browser,
 * the operator sign-in (wrong token, cookie flags, idle expiry on a moved clock, CSRF on admin
 * writes by cookie), console.enabled = false, and the compiled binary serving the embedded
 * bundle.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSvc, serveSvc } from "../../support/binary.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { ADMIN_TOKEN, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

/** The script's and the stylesheet's names in the page. */
const assetsOf = (html: string): [string, string] => {
  const names = [...html.matchAll(/\/console\/assets\/(console\.[0-9a-f]{12}\.(?:js|css))/g)].map((m) => m[1]!);
  return [names.find((n) => n.endsWith(".js"))!, names.find((n) => n.endsWith(".css"))!];
};

describe("the page and its files", () => {
  test("every /console path answers the app under a strict CSP; the files are content-hashed, gzipped on request and cached for a year", async () => {
    h = makeHarness();
    for (const path of ["/console", "/console/keys", "/console/receipts/rcpt_x", "/console/operator/accounts"]) {
      const r = await h.request("GET", path);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const csp = r.headers.get("content-security-policy")!;
      for (const d of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) expect(csp).toContain(d);
      expect(csp).not.toContain("unsafe");
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("referrer-policy")).toBe("no-referrer");
    }
    const html = await (await h.request("GET", "/console")).text();
    expect(html).not.toMatch(/<script>|<style>|style=/); // nothing inline
    const [js, css] = assetsOf(html);
    expect(js).toMatch(/\.js$/);
    expect(css).toMatch(/\.css$/);

    const plain = await h.request("GET", `/console/assets/${js}`);
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const source = await plain.text();
    expect(source).toContain("/v1/receipts/pubkey");
    const gz = await h.app.handle(new Request(`http://svc.test/console/assets/${js}`, { headers: { "accept-encoding": "gzip, br" } }));
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    const style = await h.request("GET", `/console/assets/${css}`);
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await style.text()).toContain("prefers-color-scheme");
    const missing = await h.json("GET", "/console/assets/console.000000000000.js");
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe("not_found");
  });

  test("console.enabled = false: every /console path answers 404", async () => {
    h = makeHarness({ config: (c) => (c.console.enabled = false) });
    for (const path of ["/console", "/console/keys", "/console/api/session"]) expect((await h.request("GET", path)).status).toBe(404);
  });
});

describe("/console/api/session", () => {
  test("signed out: nulls; signed in by cookie: the account and the CSRF token its cookie writes need", async () => {
    h = makeHarness({ admin: true });
    const out = await h.json("GET", "/console/api/session");
    expect(out.body).toMatchObject({ account_id: null, csrf_token: null, operator: null, admin_configured: true, passkeys: false });
    expect(out.headers.get("cache-control")).toBe("no-store");
    const { account, session } = accountWithSession(h.ctx);
    const cookie = { cookie: `svc_session=${session.token}` };
    const me = await h.json("GET", "/console/api/session", { headers: cookie });
    expect(me.body.account_id).toBe(account.id);
    expect(me.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(me.body)).not.toContain(session.token);
    // The token is what a cookie write needs: without it 403, with it the write goes through.
    expect((await h.json("POST", "/v1/keys", { headers: cookie, body: { scopes: ["inference"] } })).status).toBe(403);
    expect((await h.json("POST", "/v1/keys", { headers: { ...cookie, "x-csrf-token": me.body.csrf_token }, body: { scopes: ["inference"] } })).status).toBe(201);
    // A bad or ended session is simply signed out.
    expect((await h.json("GET", "/console/api/session", { headers: { cookie: "svc_session=sess_nope" } })).body.account_id).toBeNull();
  });
});

describe("operator sign-in", () => {
  test("the admin token for an HttpOnly SameSite=Strict session cookie; admin reads by cookie, admin writes by cookie need its CSRF token; idle expiry; sign-out", async () => {
    h = makeHarness({ admin: true, config: (c) => (c.public_url = "https://svc.example.com") });
    const wrong = await h.json("POST", "/console/api/operator", { body: { admin_token: "not-the-token" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe("invalid_admin_token");
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect((await h.json("POST", "/console/api/operator", { body: {} })).body.error.param).toBe("admin_token");

    const ok = await h.json("POST", "/console/api/operator", { body: { admin_token: ADMIN_TOKEN } });
    expect(ok.status).toBe(200);
    const setCookie = ok.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^svc_console_operator=cop_/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Secure/i);
    expect(setCookie).not.toMatch(/Expires|Max-Age/i); // ends with the browser session
    expect(setCookie).not.toContain(ADMIN_TOKEN);
    const cookie = { cookie: setCookie.split(";")[0]! };
    const csrf = ok.body.operator.csrf_token as string;

    expect((await h.json("GET", "/v1/admin/metrics", { headers: cookie })).status).toBe(200);
    expect((await h.json("GET", "/console/api/session", { headers: cookie })).body.operator).toEqual({ csrf_token: csrf });
    const { account } = accountWithSession(h.ctx);
    const body = { account_id: account.id, suspended: true, reason: "console test" };
    const refused = await h.json("POST", "/v1/admin/accounts/suspend", { headers: cookie, body });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe("csrf_refused");
    expect((await h.json("POST", "/v1/admin/accounts/suspend", { headers: { ...cookie, "x-csrf-token": csrf }, body })).body.suspended).toBe(true);

    // Unused for operator_idle_secs: gone.
    h.clock.advance(h.ctx.config.console.operator_idle_secs * 1000);
    expect((await h.json("GET", "/v1/admin/metrics", { headers: cookie })).status).toBe(401);

    const again = await h.json("POST", "/console/api/operator", { body: { admin_token: ADMIN_TOKEN } });
    const cookie2 = { cookie: again.headers.get("set-cookie")!.split(";")[0]! };
    const out = await h.json("DELETE", "/console/api/operator", { headers: cookie2 });
    expect(out.body).toEqual({ operator: null });
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/i);
    expect((await h.json("GET", "/v1/admin/metrics", { headers: cookie2 })).status).toBe(401);
  });

  test("no admin token configured: the sign-in answers 401 and the session says so", async () => {
    h = makeHarness();
    expect((await h.json("POST", "/console/api/operator", { body: { admin_token: ADMIN_TOKEN } })).status).toBe(401);
    expect((await h.json("GET", "/console/api/session")).body.admin_configured).toBe(false);
  });
});

test("the compiled binary serves the bundle embedded in it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-console-bin-"));
  expect((await runSvc(["setup", "--yes", "--data-dir", dir])).code).toBe(0);
  const svc = await serveSvc(dir);
  const page = await fetch(`${svc.url}/console/keys`);
  expect(page.status).toBe(200);
  const [js, css] = assetsOf(await page.text());
  // fetch asks for gzip itself and hands back the decoded text.
  const script = await fetch(`${svc.url}/console/assets/${js}`);
  expect(script.status).toBe(200);
  expect(script.headers.get("content-encoding")).toBe("gzip");
  expect(await script.text()).toContain("/v1/receipts/pubkey");
  expect((await fetch(`${svc.url}/console/assets/${css}`)).status).toBe(200);
}, 120_000);

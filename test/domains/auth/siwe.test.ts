/** Sign-In with Ethereum, with real wallets (viem): the happy path and every refusal. */
import { afterEach, describe, expect, test } from "bun:test";
import { setSuspended } from "../../../src/domains/accounts/service.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { newWallet, SITE, signedMessage, signIn } from "../../support/siwe.ts";

let h: Harness;
afterEach(() => h?.close());

const harness = () => makeHarness({ config: (c) => (c.public_url = SITE) });

async function refused(fields: Parameters<typeof signedMessage>[2], tamper?: (m: { message: string; signature: string }) => { message: string; signature: string }) {
  const wallet = newWallet();
  let body: { message: string; signature: string } = await signedMessage(h, wallet, fields);
  if (tamper) body = { ...body, ...tamper(body) };
  const r = await h.json("POST", "/v1/auth/verify", { body: { message: body.message, signature: body.signature } });
  return { status: r.status, reason: r.body.error?.reason as string | undefined, type: r.body.error?.type as string | undefined };
}

describe("POST /v1/auth/nonce and /v1/auth/verify", () => {
  test("a wallet's first sign-in creates its account; the next one lands in it", async () => {
    h = harness();
    const wallet = newWallet();
    const first = await signIn(h, wallet);
    expect(first.body.token).toMatch(/^sess_/);
    expect(first.body).toMatchObject({ account_created: true, wallet_address: wallet.address });
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toContain(`svc_session=${first.body.token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Secure/i);
    const second = await signIn(h, wallet);
    expect(second.body.account_created).toBe(false);
    expect(second.body.account_id).toBe(first.body.account_id);
    const me = await h.json("GET", "/v1/auth/me", { headers: bearer(second.body.token) });
    expect(me.body).toMatchObject({ account_id: first.body.account_id, wallet_address: wallet.address, wallets: [wallet.address] });
    const viaCookie = await h.json("GET", "/v1/auth/me", { headers: { cookie: `svc_session=${first.body.token}` } });
    expect(viaCookie.status).toBe(200);
  });

  test("on plain http the cookie is not marked Secure", async () => {
    h = makeHarness({ config: (c) => (c.public_url = "http://svc.test") });
    const r = await signIn(h, newWallet(), { uri: "http://svc.test" });
    expect(r.headers.get("set-cookie")).not.toMatch(/Secure/i);
  });

  test("nonces are single use and expire after five minutes", async () => {
    h = harness();
    const wallet = newWallet();
    const body = await signedMessage(h, wallet);
    const payload = { message: body.message, signature: body.signature };
    expect((await h.json("POST", "/v1/auth/verify", { body: payload })).status).toBe(200);
    const again = await h.json("POST", "/v1/auth/verify", { body: payload });
    expect(again.status).toBe(401);
    expect(again.body.error).toMatchObject({ type: "siwe_rejected", reason: "invalid_nonce" });

    const late = await signedMessage(h, wallet);
    h.clock.advance(5 * 60_000);
    const stale = await h.json("POST", "/v1/auth/verify", { body: { message: late.message, signature: late.signature } });
    expect(stale.body.error.reason).toBe("invalid_nonce");

    // A nonce svc never issued.
    expect((await refused({ nonce: "madeUpNonce12345" })).reason).toBe("invalid_nonce");
  });

  test("two concurrent verifications of one message: exactly one session", async () => {
    h = harness();
    const body = await signedMessage(h, newWallet());
    const results = await Promise.all(
      Array.from({ length: 5 }, () => h.json("POST", "/v1/auth/verify", { body: { message: body.message, signature: body.signature } })),
    );
    expect(results.filter((r) => r.status === 200).length).toBe(1);
    expect(results.filter((r) => r.status === 401).length).toBe(4);
  });

  test("refuses wrong domain, scheme, uri and chain", async () => {
    h = harness();
    expect(await refused({ domain: "evil.example" })).toMatchObject({ status: 401, reason: "domain_mismatch" });
    expect(await refused({ scheme: "http" })).toMatchObject({ status: 401, reason: "scheme_mismatch" });
    expect(await refused({ uri: "https://evil.example/login" })).toMatchObject({ status: 401, reason: "uri_mismatch" });
    expect(await refused({ chainId: 137 })).toMatchObject({ status: 401, reason: "chain_not_allowed" });
    expect((await refused({ uri: `${SITE}/some/page` })).status).toBe(200); // same origin is fine
  });

  test("refuses tampered messages, other keys' signatures and malformed input", async () => {
    h = harness();
    const tampered = await refused({}, (m) => ({ message: m.message.replace("Sign in to svc", "Sign in to svc!"), signature: m.signature }));
    expect(tampered).toMatchObject({ status: 401, reason: "invalid_signature" });
    const other = newWallet();
    const emptySignature = await refused({}, (m) => ({ message: m.message, signature: "" }));
    expect(emptySignature.status).toBe(400); // fails the schema
    const byOther = await (async () => {
      const wallet = newWallet();
      const body = await signedMessage(h, wallet);
      const signature = await other.signMessage({ message: body.message });
      return h.json("POST", "/v1/auth/verify", { body: { message: body.message, signature } });
    })();
    expect(byOther.body.error).toMatchObject({ reason: "invalid_signature", message: "signature is not by the address in the message" });
    expect((await refused({}, (m) => ({ message: m.message, signature: "0x1234" }))).reason).toBe("invalid_signature");
    const malformed = await h.json("POST", "/v1/auth/verify", { body: { message: "hello, sign me in", signature: "0x" + "11".repeat(65) } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ type: "siwe_rejected", reason: "malformed_message" });
    const extra = await h.json("POST", "/v1/auth/verify", { body: { message: "x", signature: "y", admin: true } });
    expect(extra.body.error.param).toBe("admin");
  });

  test("refuses expired, not-yet-valid, too old and future-dated messages", async () => {
    h = harness();
    const now = h.clock.now();
    expect((await refused({ expirationTime: new Date(now - 1000) })).reason).toBe("message_expired");
    expect((await refused({ notBefore: new Date(now + 10 * 60_000) })).reason).toBe("not_yet_valid");
    expect((await refused({ issuedAt: new Date(now - 11 * 60_000) })).reason).toBe("message_too_old");
    expect((await refused({ issuedAt: new Date(now + 10 * 60_000) })).reason).toBe("issued_in_future");
    expect((await refused({ expirationTime: new Date(now + 60_000), notBefore: new Date(now - 1000) })).status).toBe(200);
  });

  test("a suspended account cannot sign in, and its sessions stop working", async () => {
    h = harness();
    const wallet = newWallet();
    const { body } = await signIn(h, wallet);
    setSuspended(h.ctx, { accountId: body.account_id, suspended: true, actor: "cli" });
    const login = await h.json("POST", "/v1/auth/verify", { body: await signedMessage(h, wallet).then((m) => ({ message: m.message, signature: m.signature })) });
    expect(login.status).toBe(403);
    expect(login.body.error.type).toBe("account_suspended");
    expect((await h.json("GET", "/v1/auth/me", { headers: bearer(body.token) })).status).toBe(403);
  });

  test("capabilities say what this deployment offers", async () => {
    h = harness();
    expect((await h.json("GET", "/v1/auth/capabilities")).body).toEqual({ siwe: true, passkey: false, session_cookie: true });
  });
});

describe("sessions", () => {
  test("list (bare array, current marked), logout, logout-all", async () => {
    h = harness();
    const wallet = newWallet();
    const a = await signIn(h, wallet);
    const b = await signIn(h, wallet);
    const list = await h.json("GET", "/v1/auth/sessions", { headers: bearer(b.body.token) });
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((s: { id: string }) => s.id).sort()).toEqual([a.body.session_id, b.body.session_id].sort());
    expect(list.body.find((s: { current: boolean }) => s.current).id).toBe(b.body.session_id);
    expect(JSON.stringify(list.body)).not.toContain(a.body.token);

    const out = await h.json("POST", "/v1/auth/logout", { headers: bearer(a.body.token) });
    expect(out.body).toEqual({ logged_out: true, session_id: a.body.session_id });
    expect(out.headers.get("set-cookie")).toMatch(/svc_session=;.*Max-Age=0/i);
    expect((await h.json("GET", "/v1/auth/me", { headers: bearer(a.body.token) })).status).toBe(401);
    expect((await h.json("GET", "/v1/auth/me", { headers: bearer(b.body.token) })).status).toBe(200);

    const c = await signIn(h, wallet);
    const all = await h.json("POST", "/v1/auth/logout-all", { headers: bearer(c.body.token) });
    expect(all.body).toEqual({ logged_out: true, revoked: 2 });
    expect((await h.json("GET", "/v1/auth/me", { headers: bearer(b.body.token) })).status).toBe(401);
    expect((await h.json("GET", "/v1/auth/me", { headers: bearer(c.body.token) })).status).toBe(401);
  });

  test("sessions slide forward with use, up to the hard limit", async () => {
    h = harness();
    const { body } = await signIn(h, newWallet());
    const idle = h.ctx.config.auth.session_idle_secs * 1000;
    const max = h.ctx.config.auth.session_max_secs * 1000;
    // Used every (idle − 1 hour): never idles out…
    let elapsed = 0;
    while (elapsed + idle - 3_600_000 < max) {
      h.clock.advance(idle - 3_600_000);
      elapsed += idle - 3_600_000;
      expect((await h.json("GET", "/v1/auth/me", { headers: bearer(body.token) })).status).toBe(200);
    }
    // …but cannot outlive the maximum.
    h.clock.advance(max - elapsed);
    const r = await h.json("GET", "/v1/auth/me", { headers: bearer(body.token) });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe("session_expired");
  });

  test("an unused session expires after the idle time", async () => {
    h = harness();
    const { body } = await signIn(h, newWallet());
    h.clock.advance(h.ctx.config.auth.session_idle_secs * 1000);
    expect((await h.json("GET", "/v1/auth/me", { headers: bearer(body.token) })).body.error.type).toBe("session_expired");
  });
});

describe("wallets", () => {
  test("link another wallet with its signature, list, unlink; never the last one", async () => {
    h = harness();
    const main = newWallet();
    const second = newWallet();
    const { body: s } = await signIn(h, main);
    const auth = bearer(s.token);
    const statement = `Link this wallet to svc account ${s.account_id}`;
    const link = await signedMessage(h, second, { statement });
    const linked = await h.json("POST", "/v1/auth/wallets", { headers: auth, body: { message: link.message, signature: link.signature } });
    expect(linked.status).toBe(201);
    expect(linked.body.address).toBe(second.address);
    const again = await signedMessage(h, second, { statement });
    expect((await h.json("POST", "/v1/auth/wallets", { headers: auth, body: { message: again.message, signature: again.signature } })).status).toBe(200);
    const list = await h.json("GET", "/v1/auth/wallets", { headers: auth });
    expect(list.body.map((w: { address: string }) => w.address)).toEqual([main.address, second.address]);
    // The linked wallet signs in to the same account.
    expect((await signIn(h, second)).body.account_id).toBe(s.account_id);

    // Removal is case-insensitive; the last wallet stays.
    expect((await h.json("DELETE", `/v1/auth/wallets/${second.address.toLowerCase()}`, { headers: auth })).status).toBe(200);
    const last = await h.json("DELETE", `/v1/auth/wallets/${main.address}`, { headers: auth });
    expect(last.status).toBe(409);
    expect(last.body.error.type).toBe("last_wallet");
    expect((await h.json("DELETE", "/v1/auth/wallets/not-an-address", { headers: auth })).status).toBe(400);
  });

  test("a link must name this account, and a wallet of another account is refused", async () => {
    h = harness();
    const { body: mine } = await signIn(h, newWallet());
    const otherWallet = newWallet();
    const { body: theirs } = await signIn(h, otherWallet);
    const fresh = newWallet();
    const unnamed = await signedMessage(h, fresh, { statement: "Sign in to svc" });
    const r1 = await h.json("POST", "/v1/auth/wallets", { headers: bearer(mine.token), body: { message: unnamed.message, signature: unnamed.signature } });
    expect(r1.body.error.reason).toBe("statement_mismatch");
    const wrongAccount = await signedMessage(h, fresh, { statement: `Link this wallet to svc account ${theirs.account_id}` });
    expect((await h.json("POST", "/v1/auth/wallets", { headers: bearer(mine.token), body: { message: wrongAccount.message, signature: wrongAccount.signature } })).body.error.reason).toBe("statement_mismatch");
    const taken = await signedMessage(h, otherWallet, { statement: `Link this wallet to svc account ${mine.account_id}` });
    const r2 = await h.json("POST", "/v1/auth/wallets", { headers: bearer(mine.token), body: { message: taken.message, signature: taken.signature } });
    expect(r2.status).toBe(409);
    expect(r2.body.error.type).toBe("wallet_taken");
    // Another account's wallet cannot be removed from here: 404, like an unknown one.
    expect((await h.json("DELETE", `/v1/auth/wallets/${otherWallet.address}`, { headers: bearer(mine.token) })).status).toBe(404);
  });

  test("session routes need a session", async () => {
    h = harness();
    for (const [m, p] of [["GET", "/v1/auth/me"], ["POST", "/v1/auth/logout"], ["GET", "/v1/auth/sessions"], ["POST", "/v1/auth/logout-all"], ["GET", "/v1/auth/wallets"], ["POST", "/v1/auth/wallets"]]) {
      expect((await h.json(m!, p!)).status).toBe(401);
    }
  });
});

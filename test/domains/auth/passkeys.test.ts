/**
 * Passkeys through HTTP, with a software authenticator producing real WebAuthn objects and
 * signatures: registration, sign-in, replay and clone protection, challenge lifetime, origin
 * and rpId checks, suspension, the per-account limit, management, and the unmounted group.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { setSuspended } from "../../../src/domains/accounts/service.ts";
import { prunePasskeyChallenges } from "../../../src/domains/auth/passkeys.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { SoftAuthenticator } from "../../support/authenticator.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const RP = { rp_id: "svc.test", rp_name: "svc", origin: "https://svc.test" };
const FIVE_MINUTES = 5 * 60_000;

function passkeyHarness(): Harness {
  return makeHarness({
    config: (c) => {
      c.passkeys = { ...RP };
      c.public_url = "https://svc.test";
    },
  });
}

const newAuthenticator = (options: { counter?: number; backedUp?: boolean } = {}) => new SoftAuthenticator(RP.origin, RP.rp_id, options);

async function registrationOptions(token: string) {
  const r = await h.json("POST", "/v1/auth/passkey/register/options", { headers: bearer(token) });
  expect(r.status).toBe(200);
  return r.body;
}

/** Registers a new authenticator for the session's account; returns it and the 201 body. */
async function register(token: string, auth = newAuthenticator(), name?: string) {
  const options = await registrationOptions(token);
  const r = await h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(token), body: { response: auth.register(options), name } });
  expect(r.status).toBe(201);
  return { auth, passkey: r.body };
}

async function loginOptions() {
  const r = await h.json("POST", "/v1/auth/passkey/login/options", { body: {} });
  expect(r.status).toBe(200);
  return r.body;
}

const loginVerify = (response: unknown) => h.json("POST", "/v1/auth/passkey/login/verify", { body: { response } });

const storedCounter = (credentialId: string): number =>
  h.ctx.db.query<{ counter: number }, [string]>("SELECT counter FROM passkeys WHERE credential_id = ?").get(credentialId)!.counter;

function expectInvalidPasskey(r: { status: number; body: any }) {
  expect(r.status).toBe(401);
  expect(r.body.error.type).toBe("invalid_passkey");
  expect(r.body.error.message).toBe("the passkey could not be verified; ask for new login options and try again");
}

describe("passkeys unconfigured", () => {
  test("every passkey route answers 404 and none is in the OpenAPI document", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const routes: [string, string][] = [
      ["POST", "/v1/auth/passkey/register/options"],
      ["POST", "/v1/auth/passkey/register/verify"],
      ["POST", "/v1/auth/passkey/login/options"],
      ["POST", "/v1/auth/passkey/login/verify"],
      ["GET", "/v1/auth/passkeys"],
      ["PATCH", "/v1/auth/passkeys/pk_aaaaaaaaaaaaaaaaaaaaaaaa"],
      ["DELETE", "/v1/auth/passkeys/pk_aaaaaaaaaaaaaaaaaaaaaaaa"],
    ];
    for (const [method, path] of routes) {
      const r = await h.json(method, path, { headers: bearer(session.token), body: method === "POST" || method === "PATCH" ? {} : undefined });
      expect([method, path, r.status]).toEqual([method, path, 404]);
      expect(r.body.error.type).toBe("not_found");
    }
    const doc = await h.json("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths).filter((p) => p.includes("passkey"))).toEqual([]);
  });

  test("configured, every passkey route is in the OpenAPI document", async () => {
    h = passkeyHarness();
    const doc = await h.json("GET", "/openapi.json");
    const paths = doc.body.paths;
    expect(Object.keys(paths["/v1/auth/passkey/register/options"])).toEqual(["post"]);
    expect(Object.keys(paths["/v1/auth/passkey/register/verify"])).toEqual(["post"]);
    expect(Object.keys(paths["/v1/auth/passkey/login/options"])).toEqual(["post"]);
    expect(Object.keys(paths["/v1/auth/passkey/login/verify"])).toEqual(["post"]);
    expect(Object.keys(paths["/v1/auth/passkeys"])).toEqual(["get"]);
    expect(Object.keys(paths["/v1/auth/passkeys/{id}"]).sort()).toEqual(["delete", "patch"]);
  });
});

describe("registration", () => {
  test("options describe the account and the relying party; verify stores the credential and answers 201", async () => {
    h = passkeyHarness();
    const { account, session } = accountWithSession(h.ctx);
    const options = await registrationOptions(session.token);
    expect(options.rp).toEqual({ id: RP.rp_id, name: RP.rp_name });
    expect(options.user.name).toBe(account.id); // no wallet linked: the account id labels it
    expect(typeof options.user.id).toBe("string");
    expect(options.user.id).not.toContain(account.id.slice(5));
    expect(options.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual([-7, -257]);
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "preferred", userVerification: "preferred" });
    expect(options.excludeCredentials).toEqual([]);
    expect(options.attestation).toBe("none");
    expect(options.timeout).toBe(FIVE_MINUTES);

    const auth = newAuthenticator({ backedUp: true });
    const r = await h.json("POST", "/v1/auth/passkey/register/verify", {
      headers: bearer(session.token),
      body: { response: auth.register(options), name: "  Laptop  " },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^pk_[a-z2-7]{24}$/),
      name: "Laptop",
      credential_id: auth.id,
      aaguid: "5f7e1d3c-9a2b-4c8e-8f6a-0b1c2d3e4f50",
      device_type: "multi_device",
      backed_up: true,
      transports: ["internal", "hybrid"],
      created_at: new Date(h.clock.now()).toISOString(),
      last_used_at: null,
    });
    const row = h.ctx.db.query<any, [string]>("SELECT * FROM passkeys WHERE id = ?").get(r.body.id);
    expect(row).toMatchObject({ account_id: account.id, credential_id: auth.id, counter: 0 });
    expect(Buffer.from(row.public_key).equals(Buffer.from(auth.cosePublicKey()))).toBe(true);

    // The next options exclude it (one authenticator, one passkey) and keep the same user handle.
    const again = await registrationOptions(session.token);
    expect(again.excludeCredentials).toEqual([{ id: auth.id, type: "public-key", transports: ["internal", "hybrid"] }]);
    expect(again.user.id).toBe(options.user.id);
  });

  test("the account's first wallet labels the passkey in the authenticator", async () => {
    h = passkeyHarness();
    const { account, session } = accountWithSession(h.ctx);
    addWallet(h.ctx, account.id, "0x52908400098527886e0f7030069857d2e4169ee7");
    const options = await registrationOptions(session.token);
    expect(options.user).toMatchObject({ name: "0x52908400098527886E0F7030069857D2E4169EE7", displayName: "0x52908400098527886E0F7030069857D2E4169EE7" });
  });

  test("needs a session", async () => {
    h = passkeyHarness();
    const auth = newAuthenticator();
    for (const path of ["/v1/auth/passkey/register/options", "/v1/auth/passkey/register/verify"]) {
      const r = await h.json("POST", path, { body: {} });
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe("missing_credentials");
    }
    const r = await h.json("POST", "/v1/auth/passkey/register/verify", {
      headers: bearer("sess_forged"),
      body: { response: auth.register({ challenge: "AAAA", rp: { id: RP.rp_id }, user: { id: "AAAA" } }) },
    });
    expect(r.body.error.type).toBe("invalid_session");
  });

  test("a used, expired or another account's challenge is refused", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const other = accountWithSession(h.ctx);
    const verify = (token: string, response: unknown) => h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(token), body: { response } });

    const options = await registrationOptions(session.token);
    expect((await verify(session.token, newAuthenticator().register(options))).status).toBe(201);
    const reused = await verify(session.token, newAuthenticator().register(options));
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ type: "invalid_passkey_registration", param: "response" });
    expect(reused.body.error.message).toContain("already used");

    const stolen = await registrationOptions(other.session.token);
    expect((await verify(session.token, newAuthenticator().register(stolen))).body.error.type).toBe("invalid_passkey_registration");

    // The owner's challenge was not burnt by the other account's attempt.
    expect((await verify(other.session.token, newAuthenticator().register(stolen))).status).toBe(201);

    const late = await registrationOptions(session.token);
    h.clock.advance(FIVE_MINUTES);
    const expired = await verify(session.token, newAuthenticator().register(late));
    expect(expired.status).toBe(400);
    expect(expired.body.error.message).toContain("older than 5 minutes");
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM passkeys").get()!.n).toBe(2);
  });

  test("of two verifications racing with one challenge, exactly one succeeds", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const options = await registrationOptions(session.token);
    const results = await Promise.all(
      [newAuthenticator(), newAuthenticator()].map((a) =>
        h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(session.token), body: { response: a.register(options) } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
  });

  test("a challenge survives a refused attempt and is then usable once", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const options = await registrationOptions(session.token);
    const auth = newAuthenticator();
    const wrong = await h.json("POST", "/v1/auth/passkey/register/verify", {
      headers: bearer(session.token),
      body: { response: auth.register(options, { origin: "https://evil.test" }) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toContain("https://evil.test");
    const right = await h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(session.token), body: { response: auth.register(options) } });
    expect(right.status).toBe(201);
  });

  test("wrong origin, wrong rpId, wrong ceremony type and no user presence are refused", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    for (const overrides of [{ origin: "https://evil.test" }, { rpId: "evil.test" }, { type: "webauthn.get" }, { flags: 0x40 }]) {
      const options = await registrationOptions(session.token);
      const r = await h.json("POST", "/v1/auth/passkey/register/verify", {
        headers: bearer(session.token),
        body: { response: newAuthenticator().register(options, overrides) },
      });
      expect([overrides, r.status, r.body.error.type]).toEqual([overrides, 400, "invalid_passkey_registration"]);
    }
    expect((await h.json("GET", "/v1/auth/passkeys", { headers: bearer(session.token) })).body).toEqual([]);
  });

  test("the same credential cannot be registered twice, by its owner or anyone else", async () => {
    h = passkeyHarness();
    const a = accountWithSession(h.ctx);
    const b = accountWithSession(h.ctx);
    const { auth } = await register(a.session.token);
    for (const token of [a.session.token, b.session.token]) {
      const options = await registrationOptions(token);
      const r = await h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(token), body: { response: auth.register(options) } });
      expect(r.status).toBe(409);
      expect(r.body.error.type).toBe("passkey_already_registered");
    }
  });

  test("an id that is not the credential in attestationObject is refused", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const response = newAuthenticator().register(await registrationOptions(session.token));
    const other = newAuthenticator().id;
    const r = await h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(session.token), body: { response: { ...response, id: other, rawId: other } } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("does not match");
  });

  test("at most 20 passkeys per account, checked at options and again at verify", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    for (let i = 0; i < 19; i++) await register(session.token);
    const early = await registrationOptions(session.token); // asked for at 19
    await register(session.token); // the 20th
    const refused = await h.json("POST", "/v1/auth/passkey/register/options", { headers: bearer(session.token) });
    expect(refused.status).toBe(409);
    expect(refused.body.error.type).toBe("passkey_limit_reached");
    const late = await h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(session.token), body: { response: newAuthenticator().register(early) } });
    expect(late.status).toBe(409);
    expect(late.body.error.type).toBe("passkey_limit_reached");
    expect((await h.json("GET", "/v1/auth/passkeys", { headers: bearer(session.token) })).body.length).toBe(20);
  });

  test("bad input answers 400 naming the field", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const response = newAuthenticator().register(await registrationOptions(session.token));
    const post = (body: unknown) => h.json("POST", "/v1/auth/passkey/register/verify", { headers: bearer(session.token), body });
    const cases: [unknown, string][] = [
      [{}, "response"],
      [{ response, name: "x".repeat(65) }, "name"],
      [{ response, name: "" }, "name"],
      [{ response, name: "   " }, "name"],
      [{ response, name: "tab\there" }, "name"],
      [{ response, sneaky: 1 }, "sneaky"],
      [{ response: { ...response, type: "password" } }, "response.type"],
      [{ response: { ...response, id: "not base64url!" } }, "response.id"],
      [{ response: { ...response, response: { clientDataJSON: response.response.clientDataJSON } } }, "response.response.attestationObject"],
      [{ response: { ...response, response: { ...response.response, attestationObject: "AAAA" } } }, "response"],
    ];
    for (const [body, param] of cases) {
      const r = await post(body);
      expect([param, r.status, r.body.error.param]).toEqual([param, 400, param]);
    }
    // Fields browsers add are let through.
    const ok = await post({ response: { ...response, newBrowserField: true, response: { ...response.response, publicKeyAlgorithm: -7 } } });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe("Passkey");
  });
});

describe("sign-in", () => {
  test("end to end: a working session token, the svc_session cookie, the counter and last use saved", async () => {
    h = passkeyHarness();
    const { account, session } = accountWithSession(h.ctx);
    const { auth, passkey } = await register(session.token, newAuthenticator({ counter: 5 }));
    expect(storedCounter(auth.id)).toBe(5);
    const accounts = h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM accounts").get()!.n;

    h.clock.advance(60_000);
    const options = await loginOptions();
    expect(options).toMatchObject({ rpId: RP.rp_id, allowCredentials: [], userVerification: "preferred", timeout: FIVE_MINUTES });
    const res = await h.request("POST", "/v1/auth/passkey/login/verify", {
      body: { response: auth.assert(options) },
      headers: { "user-agent": "test-browser/1.0" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toEqual({
      token: expect.stringMatching(/^sess_/),
      token_type: "session",
      session_id: expect.stringMatching(/^ses_/),
      account_id: account.id,
      wallet_address: null,
      expires_at: expect.any(String),
      account_created: false,
    });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toContain(`svc_session=${body.token}`);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("Secure");
    expect(cookie.toLowerCase()).toContain("samesite=lax");
    expect(cookie).toContain("Path=/");

    // The token works on a session route, and so does the cookie alone.
    const list = await h.json("GET", "/v1/auth/passkeys", { headers: bearer(body.token) });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ ...passkey, last_used_at: new Date(h.clock.now()).toISOString() }]);
    expect((await h.json("GET", "/v1/auth/passkeys", { headers: { cookie: `svc_session=${body.token}` } })).status).toBe(200);
    expect(storedCounter(auth.id)).toBe(6);
    const stored = h.ctx.db.query<any, [string]>("SELECT method, wallet_address, user_agent FROM sessions WHERE id = ?").get(body.session_id);
    expect(stored).toEqual({ method: "passkey", wallet_address: null, user_agent: "test-browser/1.0" });

    // Every sign-in saves its counter.
    h.clock.advance(1000);
    expect((await loginVerify(auth.assert(await loginOptions(), { signCount: 40 }))).status).toBe(200);
    expect(storedCounter(auth.id)).toBe(40);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM accounts").get()!.n).toBe(accounts); // never creates an account
  });

  test("login options need no body and no credential", async () => {
    h = passkeyHarness();
    const r = await h.json("POST", "/v1/auth/passkey/login/options");
    expect(r.status).toBe(200);
    expect(typeof r.body.challenge).toBe("string");
    expect((await h.json("POST", "/v1/auth/passkey/login/options", { body: { wallet_address: "0x" } })).body.error.param).toBe("wallet_address");
  });

  test("a replayed assertion is refused", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    const response = auth.assert(await loginOptions());
    expect((await loginVerify(response)).status).toBe(200);
    expectInvalidPasskey(await loginVerify(response));
    expect(storedCounter(auth.id)).toBe(1);
  });

  test("an assertion whose counter did not grow is refused (a cloned authenticator)", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    expect((await loginVerify(auth.assert(await loginOptions(), { signCount: 7 }))).status).toBe(200);
    expectInvalidPasskey(await loginVerify(auth.assert(await loginOptions(), { signCount: 7 })));
    expectInvalidPasskey(await loginVerify(auth.assert(await loginOptions(), { signCount: 3 })));
    expectInvalidPasskey(await loginVerify(auth.assert(await loginOptions(), { signCount: 0 })));
    expect(storedCounter(auth.id)).toBe(7);
    expect((await loginVerify(auth.assert(await loginOptions(), { signCount: 8 }))).status).toBe(200);
  });

  test("an authenticator that never counts (always 0) still signs in", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    for (let i = 0; i < 2; i++) expect((await loginVerify(auth.assert(await loginOptions(), { signCount: 0 }))).status).toBe(200);
    expect(storedCounter(auth.id)).toBe(0);
    // With no counter to catch it, the single-use challenge alone refuses a replay.
    const response = auth.assert(await loginOptions(), { signCount: 0 });
    expect((await loginVerify(response)).status).toBe(200);
    expectInvalidPasskey(await loginVerify(response));
    const racing = await Promise.all([loginVerify(response), loginVerify(auth.assert(await loginOptions(), { signCount: 0 }))]);
    expect(racing.map((r) => r.status)).toEqual([401, 200]);
  });

  test("of two sign-ins racing with one counter value, exactly one succeeds", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    const [a, b] = [await loginOptions(), await loginOptions()];
    const results = await Promise.all([loginVerify(auth.assert(a, { signCount: 5 })), loginVerify(auth.assert(b, { signCount: 5 }))]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    expect(storedCounter(auth.id)).toBe(5);
  });

  test("of two sign-ins racing with one challenge, exactly one succeeds", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    const options = await loginOptions();
    const response = auth.assert(options, { signCount: 0 });
    const results = await Promise.all([loginVerify(response), loginVerify(response)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  test("an expired, a registration or a made-up challenge is refused", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    const options = await loginOptions();
    h.clock.advance(FIVE_MINUTES);
    expectInvalidPasskey(await loginVerify(auth.assert(options)));
    const registration = await registrationOptions(session.token);
    expectInvalidPasskey(await loginVerify(auth.assert({ challenge: registration.challenge, rpId: RP.rp_id })));
    expectInvalidPasskey(await loginVerify(auth.assert({ challenge: Buffer.from("made up").toString("base64url"), rpId: RP.rp_id })));
    // Just inside the lifetime is fine.
    const fresh = await loginOptions();
    h.clock.advance(FIVE_MINUTES - 1);
    expect((await loginVerify(auth.assert(fresh))).status).toBe(200);
  });

  test("wrong origin, wrong rpId, wrong type, a bad signature and a foreign user handle are refused", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    const other = await register(accountWithSession(h.ctx).session.token);
    for (const overrides of [{ origin: "https://evil.test" }, { origin: "http://svc.test" }, { rpId: "evil.test" }, { type: "webauthn.create" }, { flags: 0 }, { userHandle: other.auth.userHandle }]) {
      expectInvalidPasskey(await loginVerify(auth.assert(await loginOptions(), overrides)));
    }
    const forged = auth.assert(await loginOptions());
    forged.response.signature = other.auth.assert(await loginOptions()).response.signature;
    expectInvalidPasskey(await loginVerify(forged));
    // Without a user handle (a non-discoverable credential) the credential id alone is enough.
    expect((await loginVerify(auth.assert(await loginOptions(), { userHandle: null }))).status).toBe(200);
  });

  test("a credential of nobody gets the same answer as every other failure", async () => {
    h = passkeyHarness();
    const stranger = newAuthenticator();
    stranger.userHandle = Buffer.from("nobody").toString("base64url");
    expectInvalidPasskey(await loginVerify(stranger.assert(await loginOptions())));
  });

  test("a suspended account is refused after the signature checks out; the counter is kept", async () => {
    h = passkeyHarness();
    const { account, session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    setSuspended(h.ctx, { accountId: account.id, suspended: true, reason: "abuse", actor: "cli" });
    const response = auth.assert(await loginOptions());
    const r = await loginVerify(response);
    expect(r.status).toBe(403);
    expect(r.body.error.type).toBe("account_suspended");
    expect(storedCounter(auth.id)).toBe(1);
    expect(h.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sessions WHERE account_id = ? AND method = 'passkey'").get(account.id)!.n).toBe(0);
    setSuspended(h.ctx, { accountId: account.id, suspended: false, actor: "cli" });
    expectInvalidPasskey(await loginVerify(response)); // its challenge was used
    expect((await loginVerify(auth.assert(await loginOptions()))).status).toBe(200);
  });

  test("a session from a passkey can register more passkeys", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    const signedIn = await loginVerify(auth.assert(await loginOptions()));
    await register(signedIn.body.token);
    expect((await h.json("GET", "/v1/auth/passkeys", { headers: bearer(session.token) })).body.length).toBe(2);
  });

  test("bad input answers 400 naming the field", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const { auth } = await register(session.token);
    const response = auth.assert(await loginOptions());
    const cases: [unknown, string][] = [
      [{}, "response"],
      [{ response: { ...response, response: { ...response.response, signature: 5 } } }, "response.response.signature"],
      [{ response: { ...response, rawId: undefined } }, "response.rawId"],
      [{ response, extra: true }, "extra"],
    ];
    for (const [body, param] of cases) {
      const r = await h.json("POST", "/v1/auth/passkey/login/verify", { body });
      expect([param, r.status, r.body.error.param]).toEqual([param, 400, param]);
    }
    expect((await loginVerify(response)).status).toBe(200); // refused input burnt nothing
  });
});

describe("management", () => {
  test("list, rename and delete; another account's or an unknown passkey answers 404", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    const other = accountWithSession(h.ctx);
    const first = await register(session.token, newAuthenticator(), "Phone");
    h.clock.advance(1000);
    const second = await register(session.token, newAuthenticator(), "Key");
    const theirs = await register(other.session.token, newAuthenticator(), "Theirs");

    const list = await h.json("GET", "/v1/auth/passkeys", { headers: bearer(session.token) });
    expect(list.body.map((p: { name: string }) => p.name)).toEqual(["Phone", "Key"]);
    for (const p of list.body) {
      expect(Object.keys(p).sort()).toEqual(["aaguid", "backed_up", "created_at", "credential_id", "device_type", "id", "last_used_at", "name", "transports"]);
    }

    const renamed = await h.json("PATCH", `/v1/auth/passkeys/${first.passkey.id}`, { headers: bearer(session.token), body: { name: "Old phone" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...first.passkey, name: "Old phone" });
    for (const body of [{}, { name: "" }, { name: "x".repeat(65) }, { name: "ok", more: 1 }]) {
      const r = await h.json("PATCH", `/v1/auth/passkeys/${first.passkey.id}`, { headers: bearer(session.token), body });
      expect(r.status).toBe(400);
      expect(["name", "more"]).toContain(r.body.error.param);
    }

    for (const id of [theirs.passkey.id, "pk_aaaaaaaaaaaaaaaaaaaaaaaa", "nonsense"]) {
      expect((await h.json("PATCH", `/v1/auth/passkeys/${id}`, { headers: bearer(session.token), body: { name: "mine now" } })).status).toBe(404);
      expect((await h.json("DELETE", `/v1/auth/passkeys/${id}`, { headers: bearer(session.token) })).status).toBe(404);
    }
    expect((await h.json("GET", "/v1/auth/passkeys", { headers: bearer(other.session.token) })).body[0].name).toBe("Theirs");

    const deleted = await h.json("DELETE", `/v1/auth/passkeys/${second.passkey.id}`, { headers: bearer(session.token) });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: second.passkey.id, deleted: true });
    expect((await h.json("DELETE", `/v1/auth/passkeys/${second.passkey.id}`, { headers: bearer(session.token) })).status).toBe(404);
    expect((await h.json("GET", "/v1/auth/passkeys", { headers: bearer(session.token) })).body.map((p: { id: string }) => p.id)).toEqual([first.passkey.id]);
    // A deleted passkey no longer signs in.
    expectInvalidPasskey(await loginVerify(second.auth.assert(await loginOptions())));
  });

  test("management routes need a session", async () => {
    h = passkeyHarness();
    expect((await h.json("GET", "/v1/auth/passkeys")).status).toBe(401);
    expect((await h.json("PATCH", "/v1/auth/passkeys/pk_aaaaaaaaaaaaaaaaaaaaaaaa", { body: { name: "x" } })).status).toBe(401);
    expect((await h.json("DELETE", "/v1/auth/passkeys/pk_aaaaaaaaaaaaaaaaaaaaaaaa")).status).toBe(401);
  });
});

describe("challenge pruning", () => {
  test("expired challenges are deleted by the recurring job", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    await loginOptions();
    await registrationOptions(session.token);
    const count = () => h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM webauthn_challenges").get()!.n;
    expect(prunePasskeyChallenges(h.ctx)).toBe(0);
    h.clock.advance(FIVE_MINUTES);
    await loginOptions(); // still live
    expect(prunePasskeyChallenges(h.ctx)).toBe(2);
    expect(count()).toBe(1);
    const { registerJobs } = await import("../../../src/jobs.ts");
    registerJobs(h.ctx);
    h.clock.advance(FIVE_MINUTES);
    await h.ctx.scheduler.runDue();
    expect(count()).toBe(0);
  });
});

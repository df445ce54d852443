/**
 * The auth routes' OpenAPI entries: every operation declares the JSON shape of its success,
 * closed except the WebAuthn extension dictionaries, and the statuses its own rules answer.
 * The request schemas say what the services check (addresses, passkey names).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { openapiOf, openObjects, type Schema } from "../../support/openapi-shapes.ts";

let h: Harness;
afterEach(() => h?.close());


const passkeyHarness = () =>
  makeHarness({
    config: (c) => {
      c.passkeys = { rp_id: "svc.test", rp_name: "svc", origin: "https://svc.test" };
      c.public_url = "https://svc.test";
    },
  });

const openapi = () => openapiOf(h);


const OWN_ERRORS: Record<string, string[]> = {
  "post /v1/auth/verify": ["401"],
  "post /v1/auth/logout": ["404"],
  "post /v1/auth/wallets": ["409"],
  "delete /v1/auth/wallets/{addr}": ["409"],
  "post /v1/auth/passkey/login/verify": ["401"],
  "post /v1/auth/passkey/register/options": ["409"],
  "post /v1/auth/passkey/register/verify": ["409"],
};

describe("auth in the OpenAPI document", () => {
  test("every operation declares a closed JSON success schema and its own error statuses", async () => {
    h = passkeyHarness();
    const { paths } = await openapi();
    const ops = Object.entries(paths)
      .filter(([path]) => path.startsWith("/v1/auth/"))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method} ${path}`, op })));
    expect(ops.length).toBe(17);
    for (const { name, op } of ops) {
      const success = Object.keys(op.responses).filter((s) => s.startsWith("2"));
      expect([name, success.length > 0]).toEqual([name, true]);
      for (const status of success) {
        const schema = op.responses[status].content?.["application/json"]?.schema;
        expect([name, status, typeof schema]).toEqual([name, status, "object"]);
        const open = openObjects(schema).filter((p) => !p.endsWith(".extensions"));
        expect([name, status, open]).toEqual([name, status, []]);
      }
      for (const status of OWN_ERRORS[name] ?? []) expect([name, Object.keys(op.responses)]).toEqual([name, expect.arrayContaining([status])]);
    }
    // Lists are bare arrays (spec §2.1).
    for (const path of ["/v1/auth/sessions", "/v1/auth/wallets", "/v1/auth/passkeys"]) {
      expect(paths[path]!.get!.responses["200"].content["application/json"].schema.type).toBe("array");
    }
  });

  test("a wallet path parameter that is not an address answers 400 with the service's reason", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const r = await h.json("DELETE", "/v1/auth/wallets/not-an-address", { headers: bearer(session.token) });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("must be a 0x-prefixed 20-byte hex address");
  });

  test("a passkey name must have something besides whitespace and no control characters", async () => {
    h = passkeyHarness();
    const { session } = accountWithSession(h.ctx);
    for (const name of ["  ", "a\u0007b", "line\nbreak", "x\u0085"]) {
      const r = await h.json("PATCH", "/v1/auth/passkeys/pk_aaaaaaaaaaaaaaaaaaaaaaaa", { headers: bearer(session.token), body: { name } });
      expect([name, r.status, r.body.error.param]).toEqual([name, 400, "name"]);
    }
    // A fine name reaches the service, which does not know this passkey.
    expect((await h.json("PATCH", "/v1/auth/passkeys/pk_aaaaaaaaaaaaaaaaaaaaaaaa", { headers: bearer(session.token), body: { name: " Phone " } })).status).toBe(404);
  });
});

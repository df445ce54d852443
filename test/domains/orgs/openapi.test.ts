/**
 * The org routes' OpenAPI entries: every operation declares the closed JSON shape of its
 * success and the 409s (and the 404 of the token route) its rules answer; the invite body
 * says what an address is.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { openapiOf, openObjects, type Schema } from "../../support/openapi-shapes.ts";

let h: Harness;
afterEach(() => h?.close());


const openapi = () => openapiOf(h);


const OWN_ERRORS: Record<string, string[]> = {
  "post /v1/orgs/invites/accept": ["404", "409"],
  "post /v1/orgs/invites/{invite_id}/accept": ["409"],
  "delete /v1/orgs/{id}": ["409"],
  "post /v1/orgs/{id}/leave": ["409"],
  "patch /v1/orgs/{id}/members/{account_id}": ["409"],
  "delete /v1/orgs/{id}/members/{account_id}": ["409"],
  "post /v1/orgs/{id}/invites": ["409"],
};

describe("orgs in the OpenAPI document", () => {
  test("every operation declares a closed JSON success schema and its own error statuses", async () => {
    h = makeHarness();
    const { paths } = await openapi();
    const ops = Object.entries(paths)
      .filter(([path]) => path === "/v1/orgs" || path.startsWith("/v1/orgs/"))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method} ${path}`, op })));
    expect(ops.length).toBe(16);
    for (const { name, op } of ops) {
      const success = Object.keys(op.responses).filter((s) => s.startsWith("2"));
      expect([name, success.length > 0]).toEqual([name, true]);
      for (const status of success) {
        const schema = op.responses[status].content?.["application/json"]?.schema;
        expect([name, status, typeof schema]).toEqual([name, status, "object"]);
        expect([name, status, openObjects(schema)]).toEqual([name, status, []]);
      }
      for (const status of OWN_ERRORS[name] ?? []) expect([name, Object.keys(op.responses)]).toEqual([name, expect.arrayContaining([status])]);
    }
    for (const path of ["/v1/orgs", "/v1/orgs/{id}/members", "/v1/orgs/{id}/invites", "/v1/orgs/invites/mine"]) {
      expect(paths[path]!.get!.responses["200"].content["application/json"].schema.type).toBe("array");
    }
  });

  test("an invite's wallet_address is refused by its schema with the service's reason", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const org = await h.json("POST", "/v1/orgs", { headers: bearer(session.token), body: { name: "Acme" } });
    const r = await h.json("POST", `/v1/orgs/${org.body.id}/invites`, { headers: bearer(session.token), body: { role: "member", wallet_address: "0x123" } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe("wallet_address: must be a 0x-prefixed 20-byte hex address");
  });
});

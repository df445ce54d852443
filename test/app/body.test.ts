/** Request bodies: malformed JSON, oversize bodies, validation errors naming the field, the denylist. */
import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createAccount, getAccount } from "../../src/domains/accounts/service.ts";
import { ADMIN_TOKEN, bearer, type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const admin = bearer(ADMIN_TOKEN);

describe("request bodies", () => {
  test("malformed JSON answers 400 invalid_json", async () => {
    h = makeHarness({ admin: true });
    const r = await h.json("POST", "/v1/admin/accounts/suspend", { raw: '{"account_id": "acct_x", ', headers: { ...admin, "content-type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("invalid_json");
    expect(r.body.error.message).toContain("not valid JSON");
  });

  test("validation failures name the field and the reason", async () => {
    h = makeHarness({ admin: true });
    const missing = await h.json("POST", "/v1/admin/accounts/suspend", { body: { suspended: true }, headers: admin });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ type: "invalid_request", param: "account_id" });
    const wrongType = await h.json("POST", "/v1/admin/accounts/suspend", { body: { account_id: "a", suspended: "yes" }, headers: admin });
    expect(wrongType.body.error.param).toBe("suspended");
    expect(wrongType.body.error.message).toContain("suspended: expected boolean");
    const extra = await h.json("POST", "/v1/admin/accounts/suspend", { body: { account_id: "a", suspended: true, sneaky: 1 }, headers: admin });
    expect(extra.status).toBe(400);
    expect(JSON.stringify(extra.body.error.errors)).toContain("sneaky");
    const empty = await h.json("POST", "/v1/admin/accounts/suspend", { headers: admin });
    expect(empty.status).toBe(400);
    expect(empty.body.error.type).toBe("invalid_request");
  });

  test("oversized bodies answer 413 whether or not they declare their length", async () => {
    h = makeHarness({ admin: true, config: (c) => (c.max_body_bytes = 2048) });
    const big = JSON.stringify({ account_id: "a".repeat(4000), suspended: true });
    const declared = await h.json("POST", "/v1/admin/accounts/suspend", { raw: big, headers: { ...admin, "content-type": "application/json" } });
    expect(declared.status).toBe(413);
    expect(declared.body.error).toMatchObject({ type: "payload_too_large", limit_bytes: 2048 });
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 8; i++) c.enqueue(new TextEncoder().encode("x".repeat(512)));
        c.close();
      },
    });
    const streamed = await h.app.handle(new Request("http://svc.test/v1/admin/accounts/suspend", { method: "POST", headers: { ...admin, "content-type": "application/json" }, body: chunks }));
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as any).error.type).toBe("payload_too_large");
  });

  test("a denylisted body is refused before the handler runs; others pass", async () => {
    h = makeHarness({ admin: true });
    const account = createAccount(h.ctx);
    const body = JSON.stringify({ account_id: account.id, suspended: true, reason: "test" });
    const sha = createHash("sha256").update(body).digest("hex");
    expect((await h.json("POST", "/v1/admin/denylist", { body: { sha256: sha.toUpperCase(), reason: "known bad" }, headers: admin })).status).toBe(201);
    const refused = await h.json("POST", "/v1/admin/accounts/suspend", { raw: body, headers: { ...admin, "content-type": "application/json" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe("payload_denied");
    expect(getAccount(h.ctx, account.id).suspended).toBe(false); // the handler never ran
    // The same body with one byte different is not the listed payload.
    const other = await h.json("POST", "/v1/admin/accounts/suspend", { raw: body + " ", headers: { ...admin, "content-type": "application/json" } });
    expect(other.status).toBe(200);
    expect(getAccount(h.ctx, account.id).suspended).toBe(true);
    const list = await h.json("GET", "/v1/admin/denylist", { headers: admin });
    expect(list.body).toEqual([expect.objectContaining({ sha256: sha, reason: "known bad", hits: 1 })]);
  });

  test("form-encoded and text bodies are parsed by content type", async () => {
    h = makeHarness({ admin: true });
    const account = createAccount(h.ctx);
    const r = await h.json("POST", "/v1/admin/accounts/suspend", {
      raw: `account_id=${account.id}&suspended=true`,
      headers: { ...admin, "content-type": "application/x-www-form-urlencoded" },
    });
    // Form values are strings; a boolean field says so instead of guessing.
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("suspended");
  });
});

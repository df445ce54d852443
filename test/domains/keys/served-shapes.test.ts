/**
 * The keys and credit routes serve what their OpenAPI entries declare (the harness checks every
 * response against the document): the optional fields filled in, and each declared conflict.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;

describe("served shapes", () => {
  test("a key with every optional control set, its delegated child and GET /v1/credit with a cap", async () => {
    h = makeHarness();
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 10 * USD);
    const auth = bearer(session.token);
    const made = await h.json("POST", "/v1/keys", {
      headers: auth,
      body: {
        name: "all-set",
        scopes: ["billing:read", "keys:delegate"],
        monthly_cap_micro_usd: 5 * USD,
        privacy_tier: "zero_retention",
        breaker_micro_usd_per_minute: 0,
        expires_at: new Date(h.clock.now() + 3_600_000).toISOString(),
      },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ privacy_tier: "zero_retention", breaker_micro_usd_per_minute: 0, monthly_cap_micro_usd: 5 * USD, expires_at: expect.any(String) });

    const child = await h.json("POST", "/v1/keys/delegate", { headers: bearer(made.body.key), body: { name: "child", allowed_models: ["gpt-test"], allowed_services: ["svc-a"], expires_in_secs: 600 } });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ kind: "delegated", depth: 1, parent_id: made.body.id, privacy_tier: "zero_retention", allowed_models: ["gpt-test"], allowed_services: ["svc-a"] });

    const credit = await h.json("GET", "/v1/credit", { headers: bearer(made.body.key) });
    expect(credit.status).toBe(200);
    expect(credit.body).toEqual({
      balance_micro_usd: 10 * USD,
      held_micro_usd: 0,
      spendable_micro_usd: 10 * USD,
      key: { id: made.body.id, month: "2026-11", monthly_cap_micro_usd: 5 * USD, spent_this_month_micro_usd: 0, held_micro_usd: 0, remaining_this_month_micro_usd: 5 * USD, frozen: false },
    });
    expect((await h.json("GET", "/v1/keys?include_revoked=false", { headers: auth })).body).toHaveLength(2);
  });

  test("privacy_tier outside the tiers is refused by name; null is taken as none", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const bad = await h.json("POST", "/v1/keys", { headers: auth, body: { privacy_tier: "secret" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("privacy_tier");
    const none = await h.json("POST", "/v1/keys", { headers: auth, body: { privacy_tier: null, name: null, expires_at: null } });
    expect(none.status).toBe(201);
    expect(none.body.privacy_tier).toBeNull();
  });

  test("expires_in_secs is a whole number, never a numeric string", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    for (const expires_in_secs of ["600", 600.5, 59]) {
      const r = await h.json("POST", "/v1/keys", { headers: auth, body: { expires_in_secs } });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("expires_in_secs");
    }
  });

  test("revoking twice answers revoked: false; rotating or unfreezing a revoked key is 409", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const key = (await h.json("POST", "/v1/keys", { headers: auth, body: {} })).body;
    const first = await h.json("DELETE", `/v1/keys/${key.id}`, { headers: auth });
    expect(first.body).toEqual({ id: key.id, revoked: true, revoked_keys: [key.id] });
    const again = await h.json("DELETE", `/v1/keys/${key.id}`, { headers: auth });
    expect(again.body).toEqual({ id: key.id, revoked: false, revoked_keys: [] });
    const rotate = await h.json("POST", `/v1/keys/${key.id}/rotate`, { headers: auth });
    expect(rotate.status).toBe(409);
    expect(rotate.body.error.type).toBe("key_not_rotatable");
    const unfreeze = await h.json("POST", `/v1/keys/${key.id}/unfreeze`, { headers: auth });
    expect(unfreeze.status).toBe(409);
    expect(unfreeze.body.error.type).toBe("key_revoked");
  });

  test("a rotation answers the replacement, what it replaces and until when the old secret works", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const key = (await h.json("POST", "/v1/keys", { headers: auth, body: { privacy_tier: "confidential" } })).body;
    const r = await h.json("POST", `/v1/keys/${key.id}/rotate`, { headers: auth });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ replaces: key.id, privacy_tier: "confidential", old_key_valid_until: new Date(h.clock.now() + h.ctx.config.keys.rotation_grace_secs * 1000).toISOString() });
    const listed = (await h.json("GET", "/v1/keys", { headers: auth })).body as { id: string; status: string; rotated_to: string | null; grace_until: string | null }[];
    expect(listed.find((k) => k.id === key.id)).toMatchObject({ status: "rotated", rotated_to: r.body.id, grace_until: r.body.old_key_valid_until });
  });
});

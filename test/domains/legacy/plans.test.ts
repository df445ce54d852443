/** Legacy plans: the list envelope, tenancy (another account's plan is an unknown one), bad input named by field, the limits. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_BENEFICIARIES, MAX_OBJECTS } from "../../../src/domains/legacy/limits.ts";
import { apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness } from "../../support/harness.ts";
import { advance, b64, createPlan, DAY, legacyHarness, randomWallet, type Tenant, tenant } from "./legacy-support.ts";

describe("GET /v1/legacy/plans", () => {
  let h: Harness;
  afterAll(() => h.close());

  test("{plans, max_active_plans, custody}, newest first, this account's only; legacy.max_active_plans enforced on live plans", async () => {
    h = legacyHarness((c) => {
      c.legacy.max_active_plans = 2;
    });
    const owner = tenant(h);
    const other = tenant(h);
    const empty = await h.json("GET", "/v1/legacy/plans", { headers: owner.auth });
    expect(empty).toMatchObject({ status: 200, body: { plans: [], max_active_plans: 2, custody: "sealed-by-operator" } });
    const first = await createPlan(h, owner, { name: "first", beneficiaries: [{}] });
    await createPlan(h, owner, { name: "second", beneficiaries: [{}] });
    await createPlan(h, other, { name: "theirs", beneficiaries: [{}] });
    const list = await h.json("GET", "/v1/legacy/plans", { headers: owner.auth });
    expect(list.body.plans.map((p: any) => p.name)).toEqual(["second", "first"]);

    const over = await h.json("POST", "/v1/legacy/plans", { headers: owner.auth, body: { name: "third", checkin_interval_s: 86_400, warning_period_s: 86_400, beneficiaries: [{}] } });
    expect(over).toMatchObject({ status: 409, body: { error: { type: "legacy_plan_limit", limit: 2 } } });
    // A cancelled plan no longer counts.
    await h.json("POST", `/v1/legacy/plans/${first.plan.id}/cancel`, { headers: owner.auth });
    await createPlan(h, owner, { name: "third", beneficiaries: [{}] });
    expect((await h.json("GET", "/v1/legacy/plans", { headers: owner.auth })).body.plans.map((p: any) => [p.name, p.status])).toEqual([
      ["third", "active"],
      ["second", "active"],
      ["first", "cancelled"],
    ]);
  });
});

describe("tenancy and credentials", () => {
  let h: Harness;
  let owner: Tenant;
  let stranger: Tenant;
  let planId: string;
  let objectId: string;
  beforeAll(async () => {
    h = legacyHarness();
    owner = tenant(h);
    stranger = tenant(h);
    const heir = tenant(h);
    const made = await createPlan(h, owner, { beneficiaries: [{ wallet: heir.wallet }] });
    planId = made.plan.id;
    const put = await h.json("PUT", `/v1/legacy/plans/${planId}/content`, { headers: owner.auth, body: { objects: [{ name: "a", content_b64: b64("a") }] } });
    objectId = put.body.objects[0].id;
  });
  afterAll(() => h.close());

  const routes: [string, (id: string) => string, unknown][] = [
    ["GET", (id) => `/v1/legacy/plans/${id}`, undefined],
    ["POST", (id) => `/v1/legacy/plans/${id}/checkin`, undefined],
    ["PUT", (id) => `/v1/legacy/plans/${id}/content`, { objects: [] }],
    ["POST", (id) => `/v1/legacy/plans/${id}/cancel`, undefined],
    ["POST", (id) => `/v1/legacy/plans/${id}/attest`, undefined],
    ["POST", (id) => `/v1/legacy/claims/${id}/open`, {}],
  ];
  for (const [method, path, body] of routes) {
    test(`${method} ${path(":id")}: another account's plan answers exactly like an unknown one`, async () => {
      const theirs = await h.json(method, path(planId), { headers: stranger.auth, body });
      const unknown = await h.json(method, path("lgp_aaaaaaaaaaaaaaaaaaaaaaaa"), { headers: stranger.auth, body });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
    });
  }

  test("objects of a plan the caller did not open: 404, like an unknown object", async () => {
    const theirs = await h.json("GET", `/v1/legacy/claims/${planId}/objects/${objectId}`, { headers: stranger.auth });
    const unknown = await h.json("GET", `/v1/legacy/claims/${planId}/objects/lgo_aaaaaaaaaaaaaaaaaaaaaaaa`, { headers: stranger.auth });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    // The owner is no beneficiary either.
    expect((await h.json("GET", `/v1/legacy/claims/${planId}/objects/${objectId}`, { headers: owner.auth })).status).toBe(404);
  });

  test("a wrong claim token in an open answers 404; the plan stays untouched", async () => {
    const r = await h.json("POST", `/v1/legacy/claims/${planId}/open`, { headers: stranger.auth, body: { token: "lgc_nope" } });
    expect(r.status).toBe(404);
    expect((await h.json("GET", `/v1/legacy/plans/${planId}`, { headers: owner.auth })).body.status).toBe("active");
  });

  test("session routes: an API key or no credential is 401", async () => {
    const key = apiKeyFor(h.ctx, owner.accountId);
    expect((await h.json("GET", "/v1/legacy/plans", { headers: bearer(key.token) })).status).toBe(401);
    expect((await h.json("GET", "/v1/legacy/plans")).status).toBe(401);
    expect((await h.json("GET", "/v1/legacy/claims")).status).toBe(401);
  });

  test("the owner cannot attest to an own plan even after linking an attester wallet", async () => {
    const h2 = legacyHarness();
    try {
      const o = tenant(h2);
      const helper = tenant(h2);
      const { plan } = await createPlan(h2, o, { attesters: [helper.wallet], beneficiaries: [{}] });
      await advance(h2, DAY);
      // helper's wallet moves to the owner's account (unlinked there, linked here).
      h2.ctx.db.query("UPDATE wallets SET account_id = ? WHERE address = ?").run(o.accountId, helper.wallet);
      const r = await h2.json("POST", `/v1/legacy/plans/${plan.id}/attest`, { headers: o.auth });
      expect(r).toMatchObject({ status: 403, body: { error: { type: "owner_cannot_attest" } } });
      expect((await h2.json("GET", "/v1/legacy/attesting", { headers: o.auth })).body).toEqual({ plans: [] });
    } finally {
      h2.close();
    }
  });
});

describe("bad input", () => {
  let h: Harness;
  let owner: Tenant;
  beforeAll(() => {
    h = legacyHarness();
    owner = tenant(h);
  });
  afterAll(() => h.close());

  const base = { name: "plan", checkin_interval_s: 86_400, warning_period_s: 86_400, beneficiaries: [{}] };
  const w1 = randomWallet();
  const cases: [string, () => Record<string, unknown>, string][] = [
    ["no name", () => ({ ...base, name: undefined }), "name"],
    ["a blank name", () => ({ ...base, name: "   " }), "name"],
    ["a name with a control character", () => ({ ...base, name: "a\u0007b" }), "name"],
    ["a name too long", () => ({ ...base, name: "x".repeat(201) }), "name"],
    ["no checkin_interval_s", () => ({ ...base, checkin_interval_s: undefined }), "checkin_interval_s"],
    ["checkin_interval_s under an hour", () => ({ ...base, checkin_interval_s: 3599 }), "checkin_interval_s"],
    ["checkin_interval_s as a string", () => ({ ...base, checkin_interval_s: "86400" }), "checkin_interval_s"],
    ["checkin_interval_s fractional", () => ({ ...base, checkin_interval_s: 3600.5 }), "checkin_interval_s"],
    ["warning_period_s over a year", () => ({ ...base, warning_period_s: 366 * 86_400 }), "warning_period_s"],
    ["no beneficiaries", () => ({ ...base, beneficiaries: [] }), "beneficiaries"],
    [`more than ${MAX_BENEFICIARIES} beneficiaries`, () => ({ ...base, beneficiaries: Array.from({ length: MAX_BENEFICIARIES + 1 }, () => ({})) }), "beneficiaries"],
    ["a beneficiary wallet that is no address", () => ({ ...base, beneficiaries: [{ wallet: "0x1234" }] }), "beneficiaries.0.wallet"],
    ["a beneficiary wallet twice", () => ({ ...base, beneficiaries: [{ wallet: w1 }, { wallet: w1.toUpperCase().replace("0X", "0x") }] }), "beneficiaries[1].wallet"],
    ["an unknown beneficiary field", () => ({ ...base, beneficiaries: [{ email: "a@b.c" }] }), "beneficiaries.0.email"],
    ["an attester that is no address", () => ({ ...base, attesters: ["alice"] }), "attesters.0"],
    ["an attester twice", () => ({ ...base, attesters: [w1, w1] }), "attesters[1]"],
    ["the owner's own wallet as attester", () => ({ ...base, attesters: [owner.wallet] }), "attesters[0]"],
    ["attesters_required without attesters", () => ({ ...base, attesters_required: 1 }), "attesters_required"],
    ["attesters_required above the attesters", () => ({ ...base, attesters: [w1], attesters_required: 2 }), "attesters_required"],
    ["attesters_required 0", () => ({ ...base, attesters: [w1], attesters_required: 0 }), "attesters_required"],
    ["max_hold_s without attesters", () => ({ ...base, max_hold_s: 86_400 }), "max_hold_s"],
    ["max_hold_s under an hour", () => ({ ...base, attesters: [w1], max_hold_s: 60 }), "max_hold_s"],
    ["an unknown field", () => ({ ...base, content: "x" }), "content"],
  ];
  for (const [label, body, param] of cases) {
    test(`POST /v1/legacy/plans, ${label}: 400 naming ${param}`, async () => {
      const r = await h.json("POST", "/v1/legacy/plans", { headers: owner.auth, body: body() });
      expect(r.status).toBe(400);
      const norm = (p: string) => p?.replaceAll(/\[(\d+)\]/g, ".$1");
      const named = [r.body.error.param, ...(r.body.error.errors ?? []).map((e: { param: string }) => e.param)];
      expect(named.some((p: string) => norm(p) === norm(param)), JSON.stringify(r.body)).toBe(true);
      expect(h.ctx.db.query("SELECT count(*) AS n FROM legacy_plans").get()).toEqual({ n: 0 });
    });
  }

  const contentCases: [string, unknown, string][] = [
    ["no objects field", {}, "objects"],
    [`more than ${MAX_OBJECTS} objects`, { objects: Array.from({ length: MAX_OBJECTS + 1 }, (_, i) => ({ name: `o${i}`, content_b64: "YQ==" })) }, "objects"],
    ["content_b64 not base64", { objects: [{ name: "a", content_b64: "not base64!" }] }, "objects[0].content_b64"],
    ["content_b64 of impossible length", { objects: [{ name: "a", content_b64: "YWJjZ" }] }, "objects[0].content_b64"],
    ["an object without a name", { objects: [{ content_b64: "YQ==" }] }, "objects.0.name"],
    ["an unknown object field", { objects: [{ name: "a", content_b64: "YQ==", type: "text/plain" }] }, "objects.0.type"],
  ];
  for (const [label, body, param] of contentCases) {
    test(`PUT /v1/legacy/plans/:id/content, ${label}: 400 naming ${param}`, async () => {
      const { plan } = await createPlan(h, owner, { beneficiaries: [{}] });
      try {
        const r = await h.json("PUT", `/v1/legacy/plans/${plan.id}/content`, { headers: owner.auth, body });
        expect(r.status).toBe(400);
        const norm = (p: string) => p?.replaceAll(/\[(\d+)\]/g, ".$1");
        const named = [r.body.error.param, ...(r.body.error.errors ?? []).map((e: { param: string }) => e.param)];
        expect(named.some((p: string) => norm(p) === norm(param)), JSON.stringify(r.body)).toBe(true);
      } finally {
        h.ctx.db.query("DELETE FROM legacy_history").run();
        h.ctx.db.query("DELETE FROM legacy_beneficiaries").run();
        h.ctx.db.query("DELETE FROM legacy_plans").run();
      }
    });
  }

  test("content past legacy.max_content_bytes: 413 legacy_content_too_large, the old content kept", async () => {
    const small = legacyHarness((c) => {
      c.legacy.max_content_bytes = 2048;
    });
    try {
      const o = tenant(small);
      const { plan } = await createPlan(small, o, { beneficiaries: [{}] });
      await small.json("PUT", `/v1/legacy/plans/${plan.id}/content`, { headers: o.auth, body: { objects: [{ name: "keep", content_b64: b64("keep me") }] } });
      const big = await small.json("PUT", `/v1/legacy/plans/${plan.id}/content`, {
        headers: o.auth,
        body: { objects: [{ name: "a", content_b64: b64("x".repeat(1500)) }, { name: "b", content_b64: b64("y".repeat(1500)) }] },
      });
      expect(big).toMatchObject({ status: 413, body: { error: { type: "legacy_content_too_large", limit_bytes: 2048 } } });
      expect((await small.json("GET", `/v1/legacy/plans/${plan.id}`, { headers: o.auth })).body.objects.map((x: any) => x.name)).toEqual(["keep"]);
    } finally {
      small.close();
    }
  });

  test("public claim link: any unknown or malformed token is one 404", async () => {
    const a = await h.json("GET", "/v1/legacy/claim/lgc_unknown");
    const b = await h.json("GET", "/v1/legacy/claim/x");
    expect(a.status).toBe(404);
    expect(b.body).toEqual(a.body);
  });
});

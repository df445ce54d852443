/**
 * The mandate routes serve what their OpenAPI entries declare (the harness checks every response
 * against the document), and the request schema says what the handler checks.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;
const DAY = 86_400_000;

const at = (offsetMs: number) => new Date(h.clock.now() + offsetMs).toISOString();

describe("served shapes", () => {
  test("a lower-case t and z are RFC 3339 too; the window is served as instants", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const until = at(DAY);
    const r = await h.json("POST", "/v1/mandates", { headers: auth, body: { purpose: "p", budget_micro_usd: USD, valid_until: until.replace("T", "t").replace("Z", "z") } });
    expect(r.status).toBe(201);
    expect(r.body.valid_until).toBe(until);
  });

  test("a zone offset is taken; a time without a zone is refused with the RFC 3339 reason", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const ok = await h.json("POST", "/v1/mandates", { headers: auth, body: { purpose: "p", budget_micro_usd: USD, valid_until: "2026-11-23T14:00:00+02:00" } });
    expect(ok.status).toBe(201);
    expect(ok.body.valid_until).toBe("2026-11-23T12:00:00.000Z");
    const bad = await h.json("POST", "/v1/mandates", { headers: auth, body: { purpose: "p", budget_micro_usd: USD, valid_until: "2026-11-23 12:00:00" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("valid_until");
    expect(bad.body.error.message).toContain("RFC 3339");
  });

  test("every field filled in: the created mandate, the list, the proof, and the revoked mandate", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const body = {
      purpose: "  buy summaries  ",
      budget_micro_usd: 3 * USD,
      monthly_cap_micro_usd: USD,
      scopes: ["inference"],
      allowed_models: ["gpt-test", "gpt-test"],
      allowed_services: ["svc-a"],
      valid_from: at(DAY),
      valid_until: at(2 * DAY),
      name: "m",
    };
    const made = await h.json("POST", "/v1/mandates", { headers: auth, body });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ purpose: "buy summaries", status: "not_yet_valid", allowed_models: ["gpt-test"], monthly_cap_micro_usd: USD, name: "m" });
    const list = await h.json("GET", "/v1/mandates", { headers: auth });
    expect(list.body.mandates.map((m: { id: string }) => m.id)).toEqual([made.body.id]);
    const proof = await h.json("POST", `/v1/mandates/${made.body.id}/proof`, { headers: auth });
    expect(proof.status).toBe(200);
    expect(proof.body.payload).toMatchObject({ v: 1, type: "mandate-proof", mandate_id: made.body.id, allowed_services: ["svc-a"], status: "not_yet_valid" });
    const revoked = await h.json("DELETE", `/v1/mandates/${made.body.id}`, { headers: auth });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: "revoked", revoked_at: at(0) });
  });
});

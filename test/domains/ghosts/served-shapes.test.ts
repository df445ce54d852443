/** The ghost routes serve what their OpenAPI entries declare (the harness checks every response against the document). */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

describe("served shapes", () => {
  test("a ghost without budget or name; one, extended, then destroyed twice; an expired one the job has not reached yet is destroyed now", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const bare = await h.json("POST", "/v1/ghost/sessions", { headers: auth, body: { lifetime_secs: 60, budget_micro_usd: null, name: null } });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({ budget_micro_usd: null, remaining_micro_usd: null, name: null, scopes: ["*"], seconds_remaining: 60, status: "live" });

    const extended = await h.json("POST", `/v1/ghost/sessions/${bare.body.id}/extend`, { headers: auth, body: { extend_secs: 60 } });
    expect(extended.status).toBe(200);
    expect(extended.body.seconds_remaining).toBe(120);
    expect((await h.json("GET", `/v1/ghost/sessions/${bare.body.id}`, { headers: auth })).body).toEqual(extended.body);

    const first = await h.json("POST", `/v1/ghost/sessions/${bare.body.id}/destroy`, { headers: auth });
    const again = await h.json("POST", `/v1/ghost/sessions/${bare.body.id}/destroy`, { headers: auth });
    expect(first.body).toEqual({ id: bare.body.id, destroyed: true, destroyed_at: first.body.destroyed_at, reason: "destroyed" });
    expect(again.body).toEqual(first.body);

    const late = await h.json("POST", "/v1/ghost/sessions", { headers: auth, body: { lifetime_secs: 60 } });
    h.clock.advance(61_000);
    const gone = await h.json("POST", `/v1/ghost/sessions/${late.body.id}/destroy`, { headers: auth });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ id: late.body.id, destroyed: true, reason: "destroyed" });
    expect((await h.json("GET", "/v1/ghost/sessions", { headers: auth })).body).toEqual({ sessions: [] });
  });

  test("extend_secs is bounded by the schema: at most 24 hours in one call", async () => {
    h = makeHarness();
    const auth = bearer(accountWithSession(h.ctx).session.token);
    const g = (await h.json("POST", "/v1/ghost/sessions", { headers: auth, body: { lifetime_secs: 60 } })).body;
    const r = await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: auth, body: { extend_secs: 86_401 } });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("extend_secs");
  });
});

/** /v1/relays through HTTP (session routes): creating behind a share link, listing, revoking, tenancy, the purge job. */
import { afterEach, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { purgeRelays } from "../../../src/domains/relays/purge.ts";
import { apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness } from "../../support/harness.ts";
import { b64, createRelay, DAY, fetchObject, MINUTE, open, openJson, PNG, relayHarness, relayRow, sealedOf, tenant } from "./relays-support.ts";

let h: Harness;
afterEach(() => h?.close());

describe("POST /v1/relays", () => {
  test("201: the relay, a share_url carrying a secret shown once; the secret kept as sha256, the content sealed", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, {
      name: "for the auditor",
      objects: [
        { name: "note.txt", text: "the launch code is 0000" },
        { name: "chart.png", content_type: "image/PNG", data_b64: b64(PNG) },
      ],
      pin: "4821",
      ttl_secs: 3600,
      max_accesses: 3,
      view_only: true,
    });
    expect(made.secret).toMatch(/^rls_[A-Za-z0-9_-]{43}$/);
    expect(made.share_url).toBe(`${h.ctx.config.public_url}/v1/relay-access/${made.secret}`);
    expect(made.relay).toMatchObject({
      name: "for the auditor",
      status: "open",
      view_only: true,
      pin_required: true,
      max_accesses: 3,
      accesses: 0,
      accesses_left: 3,
      total_bytes: 23 + PNG.length,
      content_available: true,
      expires_at: new Date(h.clock.now() + 3600_000).toISOString(),
      last_accessed_at: null,
      revoked_at: null,
    });
    expect(made.relay.id).toMatch(/^rly_[a-z2-7]{24}$/);
    expect(made.relay.objects.map((o: any) => [o.name, o.content_type, o.bytes])).toEqual([
      ["note.txt", "text/plain; charset=utf-8", 23],
      ["chart.png", "image/png", PNG.length],
    ]);

    const row = relayRow(h, made.relay.id);
    expect(row.secret_sha256).toBe(sha256Hex(made.secret));
    expect(row.pin_mac).toHaveLength(64);
    const dump = JSON.stringify(h.ctx.db.query("SELECT * FROM relays").all()) + JSON.stringify(h.ctx.db.query("SELECT * FROM relay_objects").all());
    expect(dump).not.toContain(made.secret);
    expect(dump).not.toContain("launch code");
    expect(dump).not.toContain("4821");
    for (const sealed of sealedOf(h, made.relay.id)) expect(sealed).toMatch(/^v1\./);
  });

  test("defaults: no name, no pin, no cap, not view-only, relays.default_ttl_secs, object names object-<n>", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { objects: [{ text: "hi" }, { data_b64: "", content_type: "application/octet-stream" }] });
    expect(made.relay).toMatchObject({ name: null, pin_required: false, max_accesses: null, accesses_left: null, view_only: false });
    expect(made.relay.expires_at).toBe(new Date(h.clock.now() + h.ctx.config.relays.default_ttl_secs * 1000).toISOString());
    expect(made.relay.objects.map((o: any) => [o.name, o.bytes])).toEqual([
      ["object-1", 2],
      ["object-2", 0],
    ]);
  });

  test("expires_at is taken as given; every link is different", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const at = new Date(h.clock.now() + 2 * DAY).toISOString();
    const a = await createRelay(h, auth, { expires_at: at });
    const b = await createRelay(h, auth, { expires_at: at });
    expect(a.relay.expires_at).toBe(at);
    expect(a.secret).not.toBe(b.secret);
  });

  test("session routes: no credential 401, an API key 401", async () => {
    h = relayHarness();
    const { accountId } = tenant(h);
    const key = apiKeyFor(h.ctx, accountId);
    expect((await h.json("GET", "/v1/relays")).status).toBe(401);
    expect((await h.json("POST", "/v1/relays", { body: { objects: [{ text: "x" }] } })).status).toBe(401);
    expect((await h.json("GET", "/v1/relays", { headers: bearer(key.token) })).status).toBe(401);
  });
});

describe("GET /v1/relays", () => {
  test("{relays}: newest first, with status and counts, never content or secrets", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const first = await createRelay(h, auth, { name: "first", max_accesses: 1 });
    h.clock.advance(1000);
    const second = await createRelay(h, auth, { name: "second" });
    expect((await open(h, first.secret)).status).toBe(200);
    const r = await h.json("GET", "/v1/relays", { headers: auth });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["relays"]);
    expect(r.body.relays.map((x: any) => [x.id, x.status, x.accesses, x.accesses_left])).toEqual([
      [second.relay.id, "open", 0, null],
      [first.relay.id, "exhausted", 1, 0],
    ]);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain("launch code");
    expect(text).not.toContain(first.secret);
    expect(text).not.toContain("secret");
  });

  test("another tenant's relays are not listed", async () => {
    h = relayHarness();
    const a = tenant(h);
    const b = tenant(h);
    await createRelay(h, a.auth);
    expect((await h.json("GET", "/v1/relays", { headers: b.auth })).body).toEqual({ relays: [] });
  });

  test("at most 100 relays listed (spec §8), the newest", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) {
      const made = await createRelay(h, auth, { objects: [{ text: String(i) }] });
      ids.push(made.relay.id);
      // Revoked relays hold nothing, so the 101st fits under the live cap.
      if (i === 0) await h.json("POST", `/v1/relays/${made.relay.id}/revoke`, { headers: auth });
    }
    const r = await h.json("GET", "/v1/relays", { headers: auth });
    expect(r.body.relays).toHaveLength(100);
    expect(r.body.relays[0].id).toBe(ids[100]);
    expect(r.body.relays.map((x: any) => x.id)).not.toContain(ids[0]);
  });
});

describe("POST /v1/relays/:id/revoke", () => {
  test("destroys the ciphertext and access tokens at once; the row stays; the link 404s; idempotent", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { objects: [{ text: "a" }, { data_b64: b64(PNG), content_type: "image/png" }] });
    const opened = await openJson(h, made.secret);
    expect(opened.status).toBe(200);

    h.clock.advance(5000);
    const r = await h.json("POST", `/v1/relays/${made.relay.id}/revoke`, { headers: auth });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: made.relay.id, status: "revoked", content_available: false, revoked_at: new Date(h.clock.now()).toISOString(), content_destroyed_at: new Date(h.clock.now()).toISOString() });
    expect(r.body.objects).toHaveLength(2);
    expect(sealedOf(h, made.relay.id)).toEqual([null, null]);
    expect(relayRow(h, made.relay.id)).toMatchObject({ destroy_reason: "revoked" });
    expect(h.ctx.db.query("SELECT count(*) AS n FROM relay_access_tokens WHERE relay_id = ?").get(made.relay.id)).toEqual({ n: 0 });

    expect((await open(h, made.secret)).status).toBe(404);
    expect((await fetchObject(h, made.secret, opened.body.objects[0].id, { access_token: opened.body.access_token })).status).toBe(404);

    h.clock.advance(5000);
    const again = await h.json("POST", `/v1/relays/${made.relay.id}/revoke`, { headers: auth });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
  });

  test("another tenant's relay answers 404 exactly like an unknown id", async () => {
    h = relayHarness();
    const a = tenant(h);
    const b = tenant(h);
    const made = await createRelay(h, a.auth);
    const theirs = await h.request("POST", `/v1/relays/${made.relay.id}/revoke`, { headers: b.auth });
    const unknown = await h.request("POST", "/v1/relays/rly_aaaaaaaaaaaaaaaaaaaaaaaa/revoke", { headers: b.auth });
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).toBe(await unknown.text());
    expect(relayRow(h, made.relay.id).revoked_at).toBeNull();
    expect((await open(h, made.secret)).status).toBe(200);
  });
});

describe("the purge job", () => {
  test("expired relays lose their content; exhausted ones once the last access token lapsed; ended rows go after 30 days", async () => {
    h = relayHarness((c) => {
      c.relays.access_window_secs = 600;
    });
    const { auth } = tenant(h);
    const expiring = await createRelay(h, auth, { ttl_secs: 120 });
    const capped = await createRelay(h, auth, { max_accesses: 1 });
    const open1 = await openJson(h, capped.secret);
    expect(open1.status).toBe(200);

    h.clock.advance(2 * MINUTE);
    expect(purgeRelays(h.ctx).destroyed).toBe(1);
    expect(relayRow(h, expiring.relay.id)).toMatchObject({ destroy_reason: "expired" });
    expect(sealedOf(h, expiring.relay.id)).toEqual([null]);
    // The opener of a capped relay keeps its window.
    expect(sealedOf(h, capped.relay.id)[0]).not.toBeNull();
    expect((await fetchObject(h, capped.secret, open1.body.objects[0].id, { access_token: open1.body.access_token })).status).toBe(200);

    h.clock.advance(8 * MINUTE);
    expect(purgeRelays(h.ctx).destroyed).toBe(1);
    expect(relayRow(h, capped.relay.id)).toMatchObject({ destroy_reason: "exhausted" });
    expect(sealedOf(h, capped.relay.id)).toEqual([null]);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM relay_access_tokens").get()).toEqual({ n: 0 });

    const listed = await h.json("GET", "/v1/relays", { headers: auth });
    expect(listed.body.relays.map((r: any) => [r.status, r.content_available])).toEqual([
      ["exhausted", false],
      ["expired", false],
    ]);

    h.clock.advance(30 * DAY);
    expect(purgeRelays(h.ctx).deleted).toBe(2);
    // (The session has expired by now: the tables say it.)
    expect(h.ctx.db.query("SELECT count(*) AS n FROM relays").get()).toEqual({ n: 0 });
    expect(h.ctx.db.query("SELECT count(*) AS n FROM relay_objects").get()).toEqual({ n: 0 });
  });
});

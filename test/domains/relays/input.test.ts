/** Relays: bad input named by field, the size and count limits, and the per-address rate limit of the access routes. */
import { afterEach, describe, expect, test } from "bun:test";
import { MAX_LIVE_RELAYS, MAX_OBJECTS } from "../../../src/domains/relays/limits.ts";
import type { Harness } from "../../support/harness.ts";
import { b64, createRelay, DAY, open, relayHarness, tenant } from "./relays-support.ts";

let h: Harness;
afterEach(() => h?.close());

const text = { text: "x" };

describe("bad input", () => {
  const soon = () => new Date(h.clock.now() + DAY).toISOString();
  const cases: [string, () => Record<string, unknown>, string][] = [
    ["no objects field", () => ({}), "objects"],
    ["no objects", () => ({ objects: [] }), "objects"],
    [`more than ${MAX_OBJECTS} objects`, () => ({ objects: Array.from({ length: MAX_OBJECTS + 1 }, () => text) }), "objects"],
    ["an object with text and data_b64", () => ({ objects: [{ text: "a", data_b64: "YQ==", content_type: "text/plain" }] }), "objects[0].text"],
    ["an object with neither", () => ({ objects: [{ name: "empty" }] }), "objects[0].text"],
    ["data_b64 without content_type", () => ({ objects: [text, { data_b64: "YQ==" }] }), "objects[1].content_type"],
    ["data_b64 not base64", () => ({ objects: [{ data_b64: "not base64!", content_type: "application/octet-stream" }] }), "objects[0].data_b64"],
    ["data_b64 of impossible length", () => ({ objects: [{ data_b64: "YWJjZ", content_type: "application/octet-stream" }] }), "objects[0].data_b64"],
    ["a content type that is not a media type", () => ({ objects: [{ text: "a", content_type: "text" }] }), "objects.0.content_type"],
    ["a content type with a header injection", () => ({ objects: [{ text: "a", content_type: "text/plain\r\nset-cookie: x=1" }] }), "objects.0.content_type"],
    ["a content type with CR LF before a parameter", () => ({ objects: [{ text: "a", content_type: "text/plain\r\n; a=b" }] }), "objects.0.content_type"],
    ["a name with a slash", () => ({ objects: [{ text: "a", name: "../etc/passwd" }] }), "objects.0.name"],
    ["a name with a control character", () => ({ objects: [{ text: "a", name: "a\u0000b" }] }), "objects.0.name"],
    ["an unknown object field", () => ({ objects: [{ text: "a", url: "https://example.com" }] }), "objects.0.url"],
    ["a pin too short", () => ({ objects: [text], pin: "123" }), "pin"],
    ["a pin too long", () => ({ objects: [text], pin: "1".repeat(65) }), "pin"],
    ["expires_at and ttl_secs", () => ({ objects: [text], expires_at: soon(), ttl_secs: 3600 }), "ttl_secs"],
    ["ttl_secs under a minute", () => ({ objects: [text], ttl_secs: 59 }), "ttl_secs"],
    ["ttl_secs past relays.max_ttl_secs", () => ({ objects: [text], ttl_secs: 31 * 86_400 }), "ttl_secs"],
    ["ttl_secs as a string", () => ({ objects: [text], ttl_secs: "3600" }), "ttl_secs"],
    ["expires_at in the past", () => ({ objects: [text], expires_at: new Date(h.clock.now() - 1000).toISOString() }), "expires_at"],
    ["expires_at too far ahead", () => ({ objects: [text], expires_at: new Date(h.clock.now() + 31 * DAY).toISOString() }), "expires_at"],
    ["expires_at without a zone", () => ({ objects: [text], expires_at: "2026-12-01T00:00:00" }), "expires_at"],
    ["max_accesses 0", () => ({ objects: [text], max_accesses: 0 }), "max_accesses"],
    ["max_accesses fractional", () => ({ objects: [text], max_accesses: 1.5 }), "max_accesses"],
    ["view_only not a boolean", () => ({ objects: [text], view_only: "yes" }), "view_only"],
    ["an unknown field", () => ({ objects: [text], password: "x" }), "password"],
  ];
  for (const [label, body, param] of cases) {
    test(`${label}: 400 naming ${param}`, async () => {
      h = relayHarness();
      const { auth } = tenant(h);
      const r = await h.json("POST", "/v1/relays", { headers: auth, body: body() });
      expect(r.status).toBe(400);
      const named = [r.body.error.param, ...(r.body.error.errors ?? []).map((e: { param: string }) => e.param)];
      expect(named.some((p: string) => p === param || p?.replaceAll(/\[(\d+)\]/g, ".$1") === param.replaceAll(/\[(\d+)\]/g, ".$1")), JSON.stringify(r.body)).toBe(true);
      expect(h.ctx.db.query("SELECT count(*) AS n FROM relays").get()).toEqual({ n: 0 });
    });
  }

  test("access bodies: an unknown field or a pin of the wrong type is 400 (it says nothing of the relay)", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth);
    expect((await h.json("POST", `/v1/relay-access/${made.secret}`, { body: { pin: 1234 } })).status).toBe(400);
    expect((await h.json("POST", `/v1/relay-access/${made.secret}`, { body: { secret: "x" } })).status).toBe(400);
    expect((await h.json("POST", `/v1/relay-access/${made.secret}/objects/${made.relay.objects[0].id}`, { body: { access_token: 5 } })).status).toBe(400);
  });

  test("POST /v1/relays/:id/revoke takes no body fields", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth);
    expect((await h.json("POST", `/v1/relays/${made.relay.id}/revoke`, { headers: auth, body: { reason: "x" } })).status).toBe(400);
  });
});

describe("limits", () => {
  test("413 relay_too_large past relays.max_relay_bytes (the objects together)", async () => {
    h = relayHarness((c) => {
      c.relays.max_relay_bytes = 4096;
    });
    const { auth } = tenant(h);
    const r = await h.json("POST", "/v1/relays", { headers: auth, body: { objects: [{ text: "a".repeat(2048) }, { text: "b".repeat(2049) }] } });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ type: "relay_too_large", param: "objects", limit_bytes: 4096 });
    const one = await h.json("POST", "/v1/relays", { headers: auth, body: { objects: [{ data_b64: b64(new Uint8Array(8192)), content_type: "application/octet-stream" }] } });
    expect(one.status).toBe(413);
    await createRelay(h, auth, { objects: [{ text: "a".repeat(2048) }, { text: "b".repeat(2048) }] });
  });

  test("a relay bigger than max_body_bytes is taken up to relays.max_relay_bytes (its own body limit)", async () => {
    h = relayHarness((c) => {
      c.max_body_bytes = 64 * 1024;
      c.relays.max_relay_bytes = 256 * 1024;
    });
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { objects: [{ data_b64: b64(new Uint8Array(200 * 1024).fill(7)), content_type: "application/octet-stream" }] });
    expect(made.relay.total_bytes).toBe(200 * 1024);
  });

  test("409 relay_storage_full past relays.max_stored_bytes_per_account; a revoked relay frees its bytes", async () => {
    h = relayHarness((c) => {
      c.relays.max_relay_bytes = 4096;
      c.relays.max_stored_bytes_per_account = 8192;
    });
    const { auth } = tenant(h);
    const big = { objects: [{ text: "a".repeat(4096) }] };
    const first = await createRelay(h, auth, big);
    await createRelay(h, auth, big);
    const r = await h.json("POST", "/v1/relays", { headers: auth, body: big });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: "relay_storage_full", limit_bytes: 8192, held_bytes: 8192 });
    await h.json("POST", `/v1/relays/${first.relay.id}/revoke`, { headers: auth });
    await createRelay(h, auth, big);
  });

  test(`409 relay_limit_reached past ${MAX_LIVE_RELAYS} live relays; an expired one no longer counts`, async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    await createRelay(h, auth, { ttl_secs: 60 });
    for (let i = 1; i < MAX_LIVE_RELAYS; i++) await createRelay(h, auth);
    const r = await h.json("POST", "/v1/relays", { headers: auth, body: { objects: [text] } });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: "relay_limit_reached", limit: MAX_LIVE_RELAYS });
    h.clock.advance(60_000);
    await createRelay(h, auth);
  });
});

describe("rate limit", () => {
  test("the access routes answer 429 with Retry-After past relays.access_per_ip_per_minute", async () => {
    h = relayHarness((c) => {
      c.relays.access_per_ip_per_minute = 3;
    });
    const { auth } = tenant(h);
    const made = await createRelay(h, auth);
    for (let i = 0; i < 3; i++) expect((await open(h, made.secret)).status).toBe(200);
    const limited = await h.json("POST", `/v1/relay-access/${made.secret}`);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Guesses are limited too, and spend nothing.
    expect((await h.request("POST", "/v1/relay-access/rls_guess")).status).toBe(429);
    h.clock.advance(60_000);
    expect((await open(h, made.secret)).status).toBe(200);
  });
});

describe("configuration", () => {
  test("default_ttl_secs above max_ttl_secs, or max_relay_bytes above the account's allowance, is refused naming the keys", async () => {
    const { relaysConfig } = await import("../../../src/domains/relays/config.ts");
    h = relayHarness();
    const base = h.ctx.config;
    const withRelays = (relays: Partial<typeof base.relays>) => ({ ...base, relays: { ...base.relays, ...relays } });
    expect(() => relaysConfig.check!(withRelays({ default_ttl_secs: 100, max_ttl_secs: 60 }))).toThrow("relays.default_ttl_secs");
    expect(() => relaysConfig.check!(withRelays({ max_relay_bytes: 4096, max_stored_bytes_per_account: 2048 }))).toThrow("relays.max_relay_bytes");
    expect(() => relaysConfig.check!(base)).not.toThrow();
  });
});

/**
 * /v1/relay-access through HTTP (public; the link's secret is the credential): opening, fetching
 * objects, the view-only rule, the pin, the access cap under concurrency, and the one 404.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MAX_PIN_FAILURES } from "../../../src/domains/relays/limits.ts";
import type { Harness } from "../../support/harness.ts";
import { b64, createRelay, DAY, fetchObject, MINUTE, open, openJson, PNG, relayHarness, relayRow, sealedOf, tenant } from "./relays-support.ts";

let h: Harness;
afterEach(() => h?.close());

const PDF = Buffer.from("%PDF-1.7 pretend");

describe("POST /v1/relay-access/:secret", () => {
  test("opens the relay: object list, small text inline, an access token; spends one access", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, {
      objects: [
        { name: "note.txt", text: "meet at noon ☀" },
        { name: "chart.png", content_type: "image/png", data_b64: b64(PNG) },
        { name: "big.txt", text: "x".repeat(64 * 1024 + 1) },
        { name: "latin1.txt", content_type: "text/plain", data_b64: b64(new Uint8Array([0xff, 0xfe, 0x41])) },
      ],
      max_accesses: 2,
    });
    const r = await openJson(h, made.secret);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ relay_id: made.relay.id, view_only: false, expires_at: made.relay.expires_at, accesses_left: 1 });
    expect(r.body.access_token).toMatch(/^rat_/);
    expect(r.body.access_expires_at).toBe(new Date(h.clock.now() + h.ctx.config.relays.access_window_secs * 1000).toISOString());
    expect(r.body.objects.map((o: any) => [o.name, o.content_type, o.bytes, o.viewable, o.text])).toEqual([
      ["note.txt", "text/plain; charset=utf-8", Buffer.byteLength("meet at noon ☀"), true, "meet at noon ☀"],
      ["chart.png", "image/png", PNG.length, true, null],
      ["big.txt", "text/plain; charset=utf-8", 64 * 1024 + 1, true, null],
      ["latin1.txt", "text/plain", 3, true, null],
    ]);
    expect(relayRow(h, made.relay.id)).toMatchObject({ accesses: 1, last_accessed_at: h.clock.now() });
  });

  test("no body, an empty body and a pin on a relay without one all open it", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth);
    expect((await h.request("POST", `/v1/relay-access/${made.secret}`)).status).toBe(200);
    expect((await open(h, made.secret, {})).status).toBe(200);
    expect((await open(h, made.secret, { pin: "1234" })).status).toBe(200);
    expect(relayRow(h, made.relay.id).accesses).toBe(3);
  });
});

describe("POST /v1/relay-access/:secret/objects/:id", () => {
  test("with the access token: the bytes, as an attachment, inert headers; spends nothing, even past the cap", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { objects: [{ name: "report é.pdf", content_type: "application/pdf", data_b64: b64(PDF) }, { name: "n.txt", text: "hello" }], max_accesses: 1 });
    const opened = await openJson(h, made.secret);
    for (let i = 0; i < 3; i++) {
      const res = await fetchObject(h, made.secret, opened.body.objects[0].id, { access_token: opened.body.access_token });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(PDF);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="report _.pdf"; filename*=UTF-8''report%20%C3%A9.pdf`);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toContain("sandbox");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    expect(relayRow(h, made.relay.id).accesses).toBe(1);
    // The relay is exhausted for everyone else.
    expect((await open(h, made.secret)).status).toBe(404);
    expect((await fetchObject(h, made.secret, opened.body.objects[1].id)).status).toBe(404);
  });

  test("the access token lapses after relays.access_window_secs, and never outlives the relay's expiry", async () => {
    h = relayHarness((c) => {
      c.relays.access_window_secs = 300;
    });
    const { auth } = tenant(h);
    const made = await createRelay(h, auth);
    const opened = await openJson(h, made.secret);
    const id = opened.body.objects[0].id;
    h.clock.advance(5 * MINUTE - 1);
    expect((await fetchObject(h, made.secret, id, { access_token: opened.body.access_token })).status).toBe(200);
    h.clock.advance(1);
    expect((await fetchObject(h, made.secret, id, { access_token: opened.body.access_token })).status).toBe(404);

    const short = await createRelay(h, auth, { ttl_secs: 60 });
    const o2 = await openJson(h, short.secret);
    expect(o2.body.access_expires_at).toBe(short.relay.expires_at);
  });

  test("an access token of another relay does not open this one", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const a = await createRelay(h, auth);
    const b = await createRelay(h, auth);
    const openedA = await openJson(h, a.secret);
    const openedB = await openJson(h, b.secret);
    expect((await fetchObject(h, b.secret, openedB.body.objects[0].id, { access_token: openedA.body.access_token })).status).toBe(404);
    expect((await fetchObject(h, a.secret, openedB.body.objects[0].id, { access_token: openedA.body.access_token })).status).toBe(404);
  });

  test("without a token (pin or no pin): fetching spends one access itself", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { pin: "2468", max_accesses: 2 });
    const objectId = made.relay.objects[0].id;
    const first = await fetchObject(h, made.secret, objectId, { pin: "2468" });
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("the launch code is 0000");
    expect(first.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect((await fetchObject(h, made.secret, objectId, { pin: "2468" })).status).toBe(200);
    expect((await fetchObject(h, made.secret, objectId, { pin: "2468" })).status).toBe(404);
    expect(relayRow(h, made.relay.id).accesses).toBe(2);
  });
});

describe("view-only relays", () => {
  test("serve image/* and text/* inline; refuse others 403 relay_view_only, spending nothing", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, {
      view_only: true,
      max_accesses: 5,
      objects: [
        { name: "a.png", content_type: "image/png", data_b64: b64(PNG) },
        { name: "b.md", content_type: "text/markdown", text: "# hi" },
        { name: "c.pdf", content_type: "application/pdf", data_b64: b64(PDF) },
      ],
    });
    const opened = await openJson(h, made.secret);
    expect(opened.body.view_only).toBe(true);
    expect(opened.body.objects.map((o: any) => o.viewable)).toEqual([true, true, false]);
    const [png, md, pdf] = opened.body.objects.map((o: any) => o.id);
    const token = { access_token: opened.body.access_token };

    const image = await fetchObject(h, made.secret, png, token);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("content-disposition")).toStartWith("inline;");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG);
    expect(await (await fetchObject(h, made.secret, md, token)).text()).toBe("# hi");

    const refused = await h.json("POST", `/v1/relay-access/${made.secret}/objects/${pdf}`, { body: token });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: "relay_view_only", content_type: "application/pdf" });
    // Without a token the refusal spends no access either.
    expect((await fetchObject(h, made.secret, pdf)).status).toBe(403);
    expect(relayRow(h, made.relay.id).accesses).toBe(1);
  });
});

describe("the pin", () => {
  test("the right pin opens; a wrong or missing one is the uniform 404 and counts toward the lock", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { pin: "open sesame" });
    expect((await open(h, made.secret, { pin: "open sesame" })).status).toBe(200);
    expect((await open(h, made.secret, { pin: "open sesamE" })).status).toBe(404);
    expect((await open(h, made.secret)).status).toBe(404);
    expect((await fetchObject(h, made.secret, made.relay.objects[0].id, { pin: "nope" })).status).toBe(404);
    expect(relayRow(h, made.relay.id)).toMatchObject({ pin_failures: 3, accesses: 1 });
  });

  test(`after ${MAX_PIN_FAILURES} wrong pins the relay locks for good and its content is destroyed`, async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { pin: "2468" });
    for (let i = 0; i < MAX_PIN_FAILURES; i++) expect((await open(h, made.secret, { pin: `000${i}` })).status).toBe(404);
    expect((await open(h, made.secret, { pin: "2468" })).status).toBe(404);
    expect(relayRow(h, made.relay.id)).toMatchObject({ destroy_reason: "locked", pin_failures: MAX_PIN_FAILURES });
    expect(sealedOf(h, made.relay.id)).toEqual([null]);
    const listed = await h.json("GET", "/v1/relays", { headers: auth });
    expect(listed.body.relays[0]).toMatchObject({ status: "locked", content_available: false });
  });
});

describe("the access cap", () => {
  test("N concurrent opens with a cap of k: exactly k succeed, the rest 404", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { max_accesses: 5 });
    const answers = await Promise.all(Array.from({ length: 40 }, () => open(h, made.secret)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 404)).toHaveLength(35);
    expect(relayRow(h, made.relay.id).accesses).toBe(5);
    const tokens = await Promise.all(answers.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as { access_token: string }).access_token));
    expect(new Set(tokens).size).toBe(5);
  });

  test("opens and token-less fetches racing together share the same cap", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const made = await createRelay(h, auth, { max_accesses: 7, pin: "9999" });
    const id = made.relay.objects[0].id;
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? open(h, made.secret, { pin: "9999" }) : fetchObject(h, made.secret, id, { pin: "9999" }))));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(7);
    expect(relayRow(h, made.relay.id)).toMatchObject({ accesses: 7, pin_failures: 0 });
  });
});

describe("the one 404", () => {
  test("unknown, malformed, expired, revoked, exhausted, locked, wrong or missing pin, unknown object, dead token: byte-for-byte the same body", async () => {
    h = relayHarness();
    const { auth } = tenant(h);
    const bodies = new Map<string, string>();
    const record = async (label: string, res: Promise<Response>) => {
      const r = await res;
      expect(r.status, label).toBe(404);
      expect(r.headers.get("content-type"), label).toBe("application/json");
      bodies.set(label, await r.text());
    };

    await record("unknown secret", open(h, "rls_" + "A".repeat(43)));
    await record("malformed secret", open(h, "not-a-secret"));
    await record("unknown secret, object route", fetchObject(h, "rls_" + "B".repeat(43), "rob_x"));

    const expiring = await createRelay(h, auth, { ttl_secs: 60 });
    const revoked = await createRelay(h, auth);
    const capped = await createRelay(h, auth, { max_accesses: 1 });
    const pinned = await createRelay(h, auth, { pin: "1357" });
    const locked = await createRelay(h, auth, { pin: "1357" });
    const plain = await createRelay(h, auth);

    await h.json("POST", `/v1/relays/${revoked.relay.id}/revoke`, { headers: auth });
    await record("revoked", open(h, revoked.secret));
    await record("revoked, object route", fetchObject(h, revoked.secret, revoked.relay.objects[0].id));
    const used = await openJson(h, capped.secret);
    expect(used.status).toBe(200);
    await record("exhausted", open(h, capped.secret));
    await record("exhausted, object route", fetchObject(h, capped.secret, capped.relay.objects[0].id));
    await record("wrong pin", open(h, pinned.secret, { pin: "0000" }));
    await record("missing pin", open(h, pinned.secret));
    await record("wrong pin, object route", fetchObject(h, pinned.secret, pinned.relay.objects[0].id, { pin: "0000" }));
    for (let i = 0; i < MAX_PIN_FAILURES; i++) await open(h, locked.secret, { pin: "0000" });
    await record("locked, right pin", open(h, locked.secret, { pin: "1357" }));
    await record("unknown object", fetchObject(h, plain.secret, "rob_aaaaaaaaaaaaaaaaaaaaaaaa"));
    await record("another relay's object", fetchObject(h, plain.secret, pinned.relay.objects[0].id));
    await record("made-up access token", fetchObject(h, plain.secret, plain.relay.objects[0].id, { access_token: "rat_nope" }));
    h.clock.advance(61_000);
    await record("expired", open(h, expiring.secret));
    await record("expired, object route", fetchObject(h, expiring.secret, expiring.relay.objects[0].id));
    h.clock.advance(DAY);
    await record("lapsed access token", fetchObject(h, capped.secret, capped.relay.objects[0].id, { access_token: used.body.access_token }));

    const distinct = new Set(bodies.values());
    expect(bodies.size).toBe(17);
    expect(distinct.size).toBe(1);
    expect([...distinct][0]).toBe('{"error":{"type":"not_found","message":"relay not found"}}');
  });
});

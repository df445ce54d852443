/**
 * /v1/webhooks through HTTP: creation (the secret shown once, sealed at rest, never listed),
 * the bare-array list, DELETE and its event, enable, validation against the event catalogue,
 * other tenants' ids, authentication, and the outbound guard (refusals at creation, what it
 * allows when configured, and the address checks themselves).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/open.ts";
import { createLogger } from "../../../src/core/log.ts";
import { openSecret } from "../../../src/domains/webhooks/signing.ts";
import { blockedRange, resolveTarget, TargetRefused } from "../../../src/domains/webhooks/ssrf.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness, tempDir } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const PUBLIC_URL = "https://93.184.216.34/hooks/svc"; // a public address literal: no DNS needed

function tenant() {
  const { account, session } = accountWithSession(h.ctx);
  return { accountId: account.id, auth: bearer(session.token) };
}

const create = (auth: Record<string, string>, body: unknown) => h.json("POST", "/v1/webhooks", { headers: auth, body });
const list = async (auth: Record<string, string>) => (await h.json("GET", "/v1/webhooks", { headers: auth })).body as any[];
const events = (type: string) => h.ctx.outbox.since(0).filter((e) => e.type === type);

describe("POST /v1/webhooks", () => {
  test("201 with the whsec_ secret once; listed without it; sealed at rest, bound to its webhook", async () => {
    const lines: string[] = [];
    h = makeHarness({ log: createLogger("debug", (l) => lines.push(l)) });
    const { accountId, auth } = tenant();
    const r = await create(auth, { url: PUBLIC_URL, events: ["key_created", "balance_low", "key_created"], description: "billing bot" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^wh_[a-z2-7]{24}$/),
      url: PUBLIC_URL,
      events: ["key_created", "balance_low"],
      description: "billing bot",
      status: "active",
      created_at: new Date(h.clock.now()).toISOString(),
      disabled_at: null,
      consecutive_failures: 0,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const { secret, ...view } = r.body;

    const listed = await h.json("GET", "/v1/webhooks", { headers: auth });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([view]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify(listed.body)).not.toContain("secret");
    expect(JSON.stringify((await h.json("GET", `/v1/webhooks/${view.id}/deliveries`, { headers: auth })).body)).not.toContain(secret);

    // At rest: sealed, not the plaintext and not a bare hash; it opens only as this webhook's.
    const row = h.ctx.db.query<{ secret_sealed: string }, [string]>("SELECT secret_sealed FROM webhooks WHERE id = ?").get(view.id)!;
    expect(row.secret_sealed).not.toContain(secret.slice(6));
    expect(openSecret(h.ctx.sealer, view.id, row.secret_sealed)).toBe(secret);
    expect(() => openSecret(h.ctx.sealer, "wh_aaaaaaaaaaaaaaaaaaaaaaaa", row.secret_sealed)).toThrow();
    const dump = h.ctx.db.query<{ t: string }, []>("SELECT group_concat(payload) AS t FROM outbox_events").get()!.t;
    expect(dump).not.toContain(secret);
    expect(lines.join("\n")).not.toContain(secret);

    // webhook_created, in the same transaction; it carries neither the URL (it can be a credential) nor the secret.
    expect(events("webhook_created").map((e) => [e.account_id, e.payload])).toEqual([[accountId, { webhook_id: view.id, events: ["key_created", "balance_low"], description: "billing bot" }]]);
  });

  test('"*" subscribes to everything; the list is newest first and shows every state', async () => {
    h = makeHarness();
    const { auth } = tenant();
    const a = (await create(auth, { url: PUBLIC_URL, events: ["*"] })).body;
    h.clock.advance(1000);
    const b = (await create(auth, { url: `${PUBLIC_URL}/2`, events: ["attestation.*", "batch_failed"] })).body;
    expect(a.events).toEqual(["*"]);
    expect(b.events).toEqual(["attestation.*", "batch_failed"]);
    await h.json("DELETE", `/v1/webhooks/${a.id}`, { headers: auth });
    expect((await list(auth)).map((w) => [w.id, w.status])).toEqual([
      [b.id, "active"],
      [a.id, "revoked"],
    ]);
  });

  test("bad input is a 400 naming the field; an unknown event type is named", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const unknown = await create(auth, { url: PUBLIC_URL, events: ["key_created", "key_exploded", "batch_done"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: "invalid_request", param: "events" });
    expect(unknown.body.error.message).toContain('"key_exploded", "batch_done"');
    const cases: [unknown, string][] = [
      [{ url: PUBLIC_URL, events: ["*", "key_created"] }, "events"],
      [{ url: PUBLIC_URL, events: [] }, "events"],
      [{ url: PUBLIC_URL, events: "key_created" }, "events"],
      [{ url: PUBLIC_URL }, "events"],
      [{ events: ["*"] }, "url"],
      [{ url: "not a url", events: ["*"] }, "url"],
      [{ url: "ftp://93.184.216.34/x", events: ["*"] }, "url"],
      [{ url: "https://user:pw@93.184.216.34/x", events: ["*"] }, "url"],
      [{ url: `https://93.184.216.34/${"a".repeat(2100)}`, events: ["*"] }, "url"],
      [{ url: PUBLIC_URL, events: ["*"], description: "d".repeat(201) }, "description"],
      [{ url: PUBLIC_URL, events: ["*"], secret: "mine" }, "secret"],
    ];
    for (const [body, param] of cases) {
      const r = await create(auth, body);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    expect(await list(auth)).toEqual([]);
    expect(events("webhook_created")).toEqual([]);
  });

  test("the outbound guard refuses private, loopback, link-local, metadata and other non-public targets", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const refused: [string, string][] = [
      ["http://127.0.0.1:8080/hook", "loopback"],
      ["http://localhost:8080/hook", "loopback"],
      ["http://10.1.2.3/hook", "private"],
      ["http://172.20.0.1/hook", "private"],
      ["http://192.168.1.10/hook", "private"],
      ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
      ["http://169.254.10.1/", "link-local"],
      ["http://100.64.0.7/", "shared (carrier-grade NAT)"],
      ["http://0.0.0.0/", "unspecified"],
      ["http://2130706433/", "loopback"], // 127.0.0.1 as one number
      ["http://224.0.0.251/", "multicast"],
      ["http://[::1]/", "loopback"],
      ["http://[fd00:ec2::254]/", "unique-local"],
      ["http://[fe80::1]/", "link-local"],
      ["http://[::ffff:10.0.0.1]/", "private"],
      ["http://[ff02::1]/", "multicast"],
    ];
    for (const [url, range] of refused) {
      const r = await create(auth, { url, events: ["*"] });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("url");
      expect(r.body.error.message).toContain(`a ${range} address`);
    }
    const unresolvable = await create(auth, { url: "https://no-such-host.invalid/hook", events: ["*"] });
    expect(unresolvable.status).toBe(400);
    expect(unresolvable.body.error.message).toContain("does not resolve");
    expect(await list(auth)).toEqual([]);
    for (const url of [PUBLIC_URL, "http://[2606:4700:4700::1111]:8443/x"]) expect((await create(auth, { url, events: ["*"] })).status).toBe(201);
  });

  test("allowed when the operator says so (webhooks.allow_private, SVC_ALLOW_PRIVATE_WEBHOOKS=1)", async () => {
    h = makeHarness({ config: (c) => (c.webhooks.allow_private = true) });
    const { auth } = tenant();
    expect((await create(auth, { url: "http://127.0.0.1:9/hook", events: ["*"] })).status).toBe(201);
    expect((await create(auth, { url: "http://[::1]:9/hook", events: ["*"] })).status).toBe(201);
    const dir = tempDir();
    expect(loadConfig({ dataDir: dir }, {}).webhooks).toEqual({ timeout_secs: 15, allow_private: false });
    expect(loadConfig({ dataDir: dir }, { SVC_ALLOW_PRIVATE_WEBHOOKS: "1" }).webhooks.allow_private).toBe(true);
    expect(() => loadConfig({ dataDir: dir }, { SVC_ALLOW_PRIVATE_WEBHOOKS: "maybe" })).toThrow("SVC_ALLOW_PRIVATE_WEBHOOKS");
  });

  test("a plan's webhooks limit counts webhooks that are not revoked", async () => {
    h = makeHarness({ config: (c) => (c.plans[0]!.limits = { webhooks: 2 }) });
    const { auth } = tenant();
    const first = (await create(auth, { url: PUBLIC_URL, events: ["*"] })).body;
    expect((await create(auth, { url: PUBLIC_URL, events: ["*"] })).status).toBe(201);
    const third = await create(auth, { url: PUBLIC_URL, events: ["*"] });
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({ type: "plan_limit_reached", limit: "webhooks", max: 2, in_use: 2 });
    await h.json("DELETE", `/v1/webhooks/${first.id}`, { headers: auth });
    expect((await create(auth, { url: PUBLIC_URL, events: ["*"] })).status).toBe(201);
  });
});

describe("DELETE, enable, and other tenants", () => {
  test("DELETE revokes: disabled_at set, webhook_revoked once; final (enable, test and replay refuse)", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    const hook = (await create(auth, { url: PUBLIC_URL, events: ["*"] })).body;
    const first = await h.json("DELETE", `/v1/webhooks/${hook.id}`, { headers: auth });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: hook.id, status: "revoked", disabled_at: new Date(h.clock.now()).toISOString() });
    expect(first.body.secret).toBeUndefined();
    h.clock.advance(1000);
    const again = await h.json("DELETE", `/v1/webhooks/${hook.id}`, { headers: auth });
    expect(again.body).toEqual(first.body); // idempotent: same disabled_at
    expect(events("webhook_revoked").map((e) => [e.account_id, e.payload])).toEqual([[accountId, { webhook_id: hook.id, reason: "revoked", consecutive_failures: 0 }]]);
    for (const [path, body] of [
      ["enable", undefined],
      ["test", undefined],
      ["replay", { since: new Date(h.clock.now() - 1000).toISOString() }],
    ] as const) {
      const r = await h.json("POST", `/v1/webhooks/${hook.id}/${path}`, { headers: auth, body });
      expect(r.status).toBe(409);
      expect(r.body.error.type).toBe("webhook_revoked");
    }
  });

  test("enable on an active webhook changes nothing", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const hook = (await create(auth, { url: PUBLIC_URL, events: ["*"] })).body;
    const r = await h.json("POST", `/v1/webhooks/${hook.id}/enable`, { headers: auth });
    expect(r.status).toBe(200);
    const { secret: _secret, ...view } = hook;
    expect(r.body).toEqual(view);
  });

  test("another tenant's webhook, an unknown id and a malformed id all answer 404", async () => {
    h = makeHarness();
    const owner = tenant();
    const other = tenant();
    const hook = (await create(owner.auth, { url: PUBLIC_URL, events: ["*"] })).body;
    const routes: [string, string, unknown?][] = [
      ["DELETE", ""],
      ["GET", "/deliveries"],
      ["POST", "/test"],
      ["POST", "/replay", { since: new Date(h.clock.now()).toISOString() }],
      ["POST", "/enable"],
    ];
    for (const id of [hook.id, "wh_aaaaaaaaaaaaaaaaaaaaaaaa", "nope"]) {
      for (const [method, suffix, body] of routes) {
        const r = await h.json(method, `/v1/webhooks/${id}${suffix}`, { headers: other.auth, body });
        expect(r.status).toBe(404);
        expect(r.body.error.type).toBe("not_found");
      }
    }
    expect(await list(other.auth)).toEqual([]);
    expect((await list(owner.auth))[0].status).toBe("active");
    expect(events("webhook_test")).toEqual([]);
  });

  test("a session is required: no credential is 401, an API key is the wrong class", async () => {
    h = makeHarness();
    const { accountId } = tenant();
    const key = apiKeyFor(h.ctx, accountId);
    expect((await h.json("GET", "/v1/webhooks")).status).toBe(401);
    const wrong = await h.json("POST", "/v1/webhooks", { headers: bearer(key.token), body: { url: PUBLIC_URL, events: ["*"] } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe("wrong_credential_class");
  });

  test("every route is in the OpenAPI document", async () => {
    h = makeHarness();
    const doc = (await h.json("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths["/v1/webhooks"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/v1/webhooks/{id}"])).toEqual(["delete"]);
    for (const p of ["deliveries"]) expect(Object.keys(doc.paths[`/v1/webhooks/{id}/${p}`])).toEqual(["get"]);
    for (const p of ["test", "replay", "enable"]) expect(Object.keys(doc.paths[`/v1/webhooks/{id}/${p}`])).toEqual(["post"]);
  });
});

describe("the outbound guard's address checks", () => {
  test("address classes, IPv4 and IPv6 (embedded IPv4 answers for itself)", () => {
    const cases: [string, string | null][] = [
      ["8.8.8.8", null],
      ["93.184.216.34", null],
      ["172.15.255.255", null],
      ["172.32.0.1", null],
      ["127.255.255.254", "loopback"],
      ["10.255.0.1", "private"],
      ["192.168.0.1", "private"],
      ["169.254.169.254", "cloud metadata"],
      ["100.100.100.200", "cloud metadata"],
      ["192.0.0.192", "reserved"],
      ["198.18.0.1", "benchmarking"],
      ["203.0.113.9", "documentation"],
      ["239.255.255.250", "multicast"],
      ["255.255.255.255", "reserved"],
      ["2606:4700:4700::1111", null],
      ["2001:4860:4860::8888", null],
      ["::", "unspecified"],
      ["::1", "loopback"],
      ["fc00::1", "unique-local"],
      ["fdff:ffff::1", "unique-local"],
      ["fe80::1%eth0", "link-local"],
      ["febf::1", "link-local"],
      ["ff05::2", "multicast"],
      ["2001:db8::1", "documentation"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:8.8.8.8", null],
      ["64:ff9b::a9fe:a9fe", "cloud metadata"],
      ["2002:c0a8:0101::1", "private"],
      ["2001:0:4136:e378::1", "reserved (Teredo)"],
      ["not-an-ip", "unrecognised"],
    ];
    for (const [address, range] of cases) expect([address, blockedRange(address)]).toEqual([address, range]);
  });

  test("every resolved address must be public; the request is pinned to the checked one", async () => {
    const answers = (...addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    const mixed = resolveTarget("https://hooks.example.com/x", { allowPrivate: false, lookup: answers("93.184.216.34", "10.0.0.1") });
    await expect(mixed).rejects.toThrow("resolves to a private address");
    await expect(resolveTarget("https://hooks.example.com/x", { allowPrivate: false, lookup: answers() })).rejects.toThrow(TargetRefused);

    const pinned = await resolveTarget("https://hooks.example.com:8443/in?x=1", { allowPrivate: false, lookup: answers("93.184.216.34") });
    expect(pinned).toEqual({ url: "https://93.184.216.34:8443/in?x=1", host: "hooks.example.com:8443", serverName: "hooks.example.com" });
    const v6 = await resolveTarget("http://hooks.example.com/in", { allowPrivate: false, lookup: answers("2606:4700::1") });
    expect(v6).toEqual({ url: "http://[2606:4700::1]/in", host: "hooks.example.com", serverName: null });

    // DNS that changes between checks (rebinding) is caught at the next check.
    let calls = 0;
    const rebinding = async () => [{ address: calls++ === 0 ? "93.184.216.34" : "127.0.0.1", family: 4 }];
    expect((await resolveTarget("http://rebind.example/x", { allowPrivate: false, lookup: rebinding })).url).toBe("http://93.184.216.34/x");
    await expect(resolveTarget("http://rebind.example/x", { allowPrivate: false, lookup: rebinding })).rejects.toThrow("resolves to a loopback address");

    // Allowed: not resolved, not pinned.
    expect(await resolveTarget("http://localhost:9/x", { allowPrivate: true, lookup: answers() })).toEqual({ url: "http://localhost:9/x", host: null, serverName: null });
  });
});

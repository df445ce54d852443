/**
 * Launches without a chain: the flags (501 while off), creation and its locked spec (digest,
 * reveal), checks through a stand-in custodian, the hash-chained actions log, the spec's tools
 * (403 tool_not_locked), PATCH, retirement, org roles (member vs admin), another tenant's 404
 * and bad input, table-driven.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { recoverTypedDataAddress } from "viem";
import { canonicalJson } from "../../../src/core/canonical-json.ts";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";
import { call, createLaunch, type Custodian, launchBody, launchesHarness, startCustodian, tenant } from "./launches-support.ts";

let custodian: Custodian;
let h: Harness;
beforeAll(() => {
  custodian = startCustodian();
});
afterAll(() => custodian.stop());
afterEach(() => {
  h?.close();
  custodian.figure = "1500";
  custodian.up = true;
});

const typed = (a: any) => ({
  domain: a.domain,
  types: a.types,
  primaryType: a.primary_type,
  message: Object.fromEntries(Object.entries(a.message).map(([k, v]) => [k, a.types[a.primary_type].find((f: any) => f.name === k).type === "uint256" ? BigInt(v as string) : v])),
  signature: a.signature,
});

describe("flags", () => {
  test("everything that is off answers 501, the public subscription read says enabled:false, fees default to 0", async () => {
    h = makeHarness({ config: (c) => (c.webhooks.allow_private = true) });
    const me = tenant(h);
    const off = await call(h, me, "POST", "/v1/launches", launchBody(custodian));
    expect([off.status, off.body.error.type]).toEqual([501, "not_implemented"]);

    const fees = await call(h, null, "GET", "/v1/launches/fees");
    expect(fees.status).toBe(200);
    expect(fees.body).toEqual({ launch_fee_micro_usd: 0, monthly_fee_micro_usd: 0, public_check_price_micro_usd: 0, public_check_cooldown_secs: 300 });
    h.close();

    // Creation on; the mint rail and subscriptions still off.
    h = launchesHarness((c) => (c.launches.mint_authorizations_enabled = false));
    const owner = tenant(h);
    const launch = await createLaunch(h, owner, custodian);
    const mint = await call(h, owner, "POST", `/v1/launches/${launch.id}/mint-authorizations`, { amount: "1", to: "0x000000000000000000000000000000000000dEaD" });
    expect([mint.status, mint.body.error.type]).toEqual([501, "not_implemented"]);
    for (const [method, path, body] of [
      ["POST", `/v1/launches/${launch.id}/subscription`, { chain: "x", payment_token: "0x000000000000000000000000000000000000dEaD", price_units: "1", period_secs: 86400, pay_to: "0x000000000000000000000000000000000000dEaD" }],
      ["GET", `/v1/launches/${launch.id}/subscription`, undefined],
    ] as const) {
      const r = await call(h, owner, method, path, body);
      expect([path, r.status, r.body.error.type]).toEqual([path, 501, "not_implemented"]);
    }
    const pub = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/subscription`);
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ enabled: false, slug: launch.slug, payment_token: null, payment_token_decimals: null });
    const auth = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/subscription/authorize`, { subscriber: "0x000000000000000000000000000000000000dEaD" });
    expect([auth.status, auth.body.error.type]).toEqual([501, "not_implemented"]);
  });
});

describe("fees", () => {
  test("a launch fee is metered work: 402 insufficient_credit without credit, a receipt with it; /fees publishes it", async () => {
    h = launchesHarness((c) => {
      c.launches.launch_fee_micro_usd = 250_000;
      c.launches.monthly_fee_micro_usd = 100_000;
    });
    const me = tenant(h);
    const fees = await call(h, null, "GET", "/v1/launches/fees");
    expect(fees.body).toMatchObject({ launch_fee_micro_usd: 250_000, monthly_fee_micro_usd: 100_000 });
    const broke = await call(h, me, "POST", "/v1/launches", launchBody(custodian));
    expect([broke.status, broke.body.error.type]).toEqual([402, "insufficient_credit"]);
    expect((await call(h, me, "GET", "/v1/launches/mine")).body.launches).toEqual([]);

    h.ctx.ledger.adjust(me.accountId, 1_000_000, { memo: "test credit" });
    await createLaunch(h, me, custodian);
    const balance = await call(h, me, "GET", "/v1/billing/balance");
    expect(balance.body.balance_micro_usd).toBe(750_000);
  });
});

describe("a launch", () => {
  test("its spec is locked: digest public at once, spec and canonical text only from reveal_at; literal segments win over :id", async () => {
    h = launchesHarness();
    const me = tenant(h);
    const revealAt = new Date(h.clock.now() + 3_600_000).toISOString();
    const spec = { tools: ["nav", "distribute"], passthrough: true, terms: "1:1", n: 3 };
    const launch = await createLaunch(h, me, custodian, { slug: "gold-usd", reveal_at: revealAt, spec });
    expect(launch).toMatchObject({ slug: "gold-usd", status: "active", spec, revealed: false, token: null, latest_check: null, account_id: me.accountId, org_id: null });
    expect(launch.spec_canonical).toBe(canonicalJson(spec));
    expect(launch.digest).toBe(sha256Hex(canonicalJson(spec)));
    const pub = await call(h, null, "GET", "/v1/receipts/pubkey");
    expect(launch.verdict_signer).toBe(pub.body.address);
    // The custodian's credential never comes back; its URL's query is not published.
    expect(launch.custodian).toEqual({ kind: "custodian", label: "Acme Trust", source_ref: `${custodian.url}/v1/reserves`, pointer: "/reserves/amount", chain: null, token: null, has_credential: true });

    const hidden = await call(h, null, "GET", "/v1/launches/public/gold-usd");
    expect(hidden.status).toBe(200);
    expect(hidden.body).toMatchObject({ spec: null, spec_canonical: null, digest: launch.digest, revealed: false });
    const listed = await call(h, null, "GET", "/v1/launches");
    expect(listed.body.launches.map((l: any) => [l.slug, l.spec])).toEqual([["gold-usd", null]]);
    const mine = await call(h, me, "GET", "/v1/launches/mine");
    expect(mine.body.launches.map((l: any) => [l.id, l.spec])).toEqual([[launch.id, spec]]);

    h.clock.advance(3_600_000);
    const open = await call(h, null, "GET", "/v1/launches/public/gold-usd");
    expect(open.body).toMatchObject({ spec, revealed: true });
    expect(sha256Hex(open.body.spec_canonical)).toBe(launch.digest);

    const taken = await call(h, me, "POST", "/v1/launches", launchBody(custodian, { slug: "gold-usd" }));
    expect([taken.status, taken.body.error.type]).toEqual([409, "slug_taken"]);
    const named = await createLaunch(h, me, custodian, { name: "Silver Note!" });
    expect(named.slug).toMatch(/^silver-note-[a-z2-7]{6}$/);
  });

  test("a check through the custodian: VERIFIED with the figure, UNAVAILABLE when it is down; a signed CheckAttestation with stale", async () => {
    h = launchesHarness();
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    const r = await call(h, me, "POST", `/v1/launches/${launch.id}/check`);
    expect(r.status).toBe(200);
    expect(r.body.check).toMatchObject({ seq: 1, status: "VERIFIED", trigger: "owner", reserves: "1500", reserves_units: "1500000000", supply_units: "0", token: null, reason: null, stale: false });
    expect(r.body.check.evidence).toMatchObject({ source_kind: "custodian", source_ref: `${custodian.url}/v1/reserves`, label: "Acme Trust" });
    expect(custodian.seen.at(-1)).toEqual({ authorized: true });

    const att = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/attestation`);
    expect(att.status).toBe(200);
    expect(att.body).toMatchObject({ launch_id: launch.id, stale: false, check: { seq: 1, status: "VERIFIED" } });
    expect(att.body.attestation.domain).toEqual({ name: "svc", version: "1" });
    expect(att.body.attestation.message).toMatchObject({ launch: launch.id, seq: "1", status: "VERIFIED", reserves: "1500000000", supply: "0", specDigest: `0x${launch.digest}`, evidence: `0x${r.body.check.evidence.content_sha256}` });
    expect(await recoverTypedDataAddress(typed(att.body.attestation))).toBe(att.body.attestation.signer);
    expect(att.body.attestation.signer).toBe(launch.verdict_signer);

    custodian.up = false;
    const down = await call(h, me, "POST", `/v1/launches/${launch.id}/check`);
    expect(down.body.check).toMatchObject({ seq: 2, status: "UNAVAILABLE", reserves: null, supply_units: null, evidence: null, reason: "custodian: the source answered HTTP 503" });

    // Two intervals later the latest check is stale.
    h.clock.advance(2 * 3600_000 + 1000);
    const stale = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/attestation`);
    expect(stale.body).toMatchObject({ stale: true, check: { seq: 2, status: "UNAVAILABLE", stale: true } });
    expect(stale.body.attestation.message).toMatchObject({ reserves: "0", supply: "0", evidence: `0x${"0".repeat(64)}` });
  });

  test("the actions log is append-only, hash-chained (recomputed here) and paged with before_seq", async () => {
    h = launchesHarness();
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    await call(h, me, "POST", `/v1/launches/${launch.id}/check`);
    await call(h, me, "POST", `/v1/launches/${launch.id}/nav`);
    await call(h, me, "POST", `/v1/launches/${launch.id}/distributions`, { amount_units: "2500", asset: "USD", memo: "November coupon" });
    await call(h, me, "PATCH", `/v1/launches/${launch.id}`, { interval_s: 7200 });

    const all = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/actions`);
    expect(all.status).toBe(200);
    const entries = [...all.body.actions].reverse();
    expect(entries.map((a: any) => a.kind)).toEqual(["created", "check", "nav", "distribution", "settings_changed"]);
    let prev = "0".repeat(64);
    for (const a of entries) {
      expect(a.prev_hash).toBe(prev);
      expect(a.entry_hash).toBe(sha256Hex(canonicalJson({ launch_id: launch.id, seq: a.seq, kind: a.kind, data: a.data, created_at: a.created_at_ms, prev_hash: a.prev_hash })));
      prev = a.entry_hash;
    }
    expect(all.body.next_before_seq).toBeNull();

    const page1 = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/actions?limit=2`);
    expect(page1.body.actions.map((a: any) => a.seq)).toEqual([5, 4]);
    expect(page1.body.next_before_seq).toBe(4);
    const page2 = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/actions?limit=2&before_seq=4`);
    expect(page2.body.actions.map((a: any) => a.seq)).toEqual([3, 2]);
    const bad = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/actions?before_seq=x`);
    expect([bad.status, bad.body.error.param]).toEqual([400, "before_seq"]);
  });

  test("tools: granted ones record real entries; one not in the locked spec is 403 tool_not_locked; distributions need passthrough", async () => {
    h = launchesHarness();
    const me = tenant(h);
    const full = await createLaunch(h, me, custodian);
    const none = await call(h, me, "POST", `/v1/launches/${full.id}/nav`);
    expect([none.status, none.body.error.type]).toEqual([409, "no_check_figures"]);
    await call(h, me, "POST", `/v1/launches/${full.id}/check`);
    const nav = await call(h, me, "POST", `/v1/launches/${full.id}/nav`);
    expect(nav.status).toBe(201);
    expect(nav.body.action).toMatchObject({ kind: "nav", data: { check_seq: 1, status: "VERIFIED", reserves_units: "1500000000", supply_units: "0", nav_per_token_units: null, rounding: "floor" } });
    const dist = await call(h, me, "POST", `/v1/launches/${full.id}/distributions`, { amount_units: "2500", asset: "USD", record_date: "2026-11-30T00:00:00Z" });
    expect(dist.status).toBe(201);
    expect(dist.body.action).toMatchObject({ kind: "distribution", data: { amount_units: "2500", asset: "USD", record_date: "2026-11-30T00:00:00.000Z", memo: null } });

    const bare = await createLaunch(h, me, custodian, { spec: { tools: [], passthrough: true } });
    for (const tool of ["nav", "distributions"]) {
      const r = await call(h, me, "POST", `/v1/launches/${bare.id}/${tool}`, tool === "nav" ? undefined : { amount_units: "1", asset: "USD" });
      expect([tool, r.status, r.body.error.type]).toEqual([tool, 403, "tool_not_locked"]);
    }
    const closed = await createLaunch(h, me, custodian, { spec: { tools: ["distribute"], passthrough: false } });
    const r = await call(h, me, "POST", `/v1/launches/${closed.id}/distributions`, { amount_units: "1", asset: "USD" });
    expect([r.status, r.body.error.type]).toEqual([403, "passthrough_not_declared"]);
  });

  test("PATCH changes only the custodian, decimals and interval; retire keeps the record public and stops new work", async () => {
    h = launchesHarness();
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    const p = await call(h, me, "PATCH", `/v1/launches/${launch.id}`, { custodian: { pointer: "/reserves/amount", credential: "cust-secret-123" }, decimals: 8, interval_s: 600 });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ decimals: 8, interval_s: 600, custodian: { has_credential: true, pointer: "/reserves/amount" }, digest: launch.digest });
    for (const field of ["name", "spec", "slug", "reveal_at"]) {
      const r = await call(h, me, "PATCH", `/v1/launches/${launch.id}`, { [field]: "x" });
      expect([field, r.status, r.body.error.param]).toEqual([field, 400, field]);
    }
    const checked = await call(h, me, "POST", `/v1/launches/${launch.id}/check`);
    expect(checked.body.check).toMatchObject({ reserves_units: "150000000000", decimals: 8 });

    const retired = await call(h, me, "POST", `/v1/launches/${launch.id}/retire`);
    expect(retired.body).toMatchObject({ status: "retired" });
    expect((await call(h, me, "POST", `/v1/launches/${launch.id}/retire`)).body.status).toBe("retired");
    for (const [method, path, body] of [
      ["POST", `/v1/launches/${launch.id}/check`, undefined],
      ["PATCH", `/v1/launches/${launch.id}`, { interval_s: 900 }],
      ["POST", `/v1/launches/public/${launch.slug}/check`, undefined],
    ] as const) {
      const r = await call(h, path.includes("/public/") ? null : me, method, path, body);
      expect([path, r.status, r.body.error.type]).toEqual([path, 409, "launch_retired"]);
    }
    const pub = await call(h, null, "GET", `/v1/launches/public/${launch.slug}`);
    expect(pub.body).toMatchObject({ status: "retired", latest_check: { seq: 1, status: "VERIFIED" } });
  });

  test("scheduled checks run every interval_s as scheduler jobs and stop once retired", async () => {
    h = launchesHarness();
    const { registerJobs } = await import("../../../src/jobs.ts");
    registerJobs(h.ctx);
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian, { interval_s: 600 });
    await h.ctx.scheduler.runDue();
    let view = await call(h, me, "GET", `/v1/launches/${launch.id}`);
    expect(view.body.latest_check).toMatchObject({ seq: 1, trigger: "scheduled", status: "VERIFIED" });
    h.clock.advance(600_000);
    await h.ctx.scheduler.runDue();
    view = await call(h, me, "GET", `/v1/launches/${launch.id}`);
    expect(view.body.latest_check).toMatchObject({ seq: 2, trigger: "scheduled" });
    await call(h, me, "POST", `/v1/launches/${launch.id}/retire`);
    h.clock.advance(600_000);
    await h.ctx.scheduler.runDue();
    view = await call(h, me, "GET", `/v1/launches/${launch.id}`);
    expect(view.body.latest_check.seq).toBe(2);
    expect(view.body.mint_eligibility).toMatchObject({ eligible: false, token_bound: false });
  });
});

describe("who", () => {
  test("an org's launch: a member cannot create or manage it, an admin can, members read it, outsiders get 404", async () => {
    h = launchesHarness();
    const owner = tenant(h);
    const admin = tenant(h);
    const member = tenant(h);
    const outsider = tenant(h);
    const org = (await call(h, owner, "POST", "/v1/orgs", { name: "Issuer Co" })).body.id;
    for (const [who, role] of [[admin, "admin"], [member, "member"]] as const) {
      const inv = await call(h, owner, "POST", `/v1/orgs/${org}/invites`, { role });
      expect((await call(h, who, "POST", "/v1/orgs/invites/accept", { token: inv.body.token })).status).toBe(200);
    }
    const refused = await call(h, member, "POST", "/v1/launches", launchBody(custodian, { org_id: org }));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: "insufficient_role", required_role: "admin", role: "member" });
    const notMine = await call(h, outsider, "POST", "/v1/launches", launchBody(custodian, { org_id: org }));
    expect(notMine.status).toBe(404);

    const launch = await createLaunch(h, admin, custodian, { org_id: org });
    expect(launch.org_id).toBe(org);
    const read = await call(h, member, "GET", `/v1/launches/${launch.id}`);
    expect(read.status).toBe(200);
    expect((await call(h, member, "GET", "/v1/launches/mine")).body.launches.map((l: any) => l.id)).toEqual([launch.id]);
    const patch = await call(h, member, "PATCH", `/v1/launches/${launch.id}`, { interval_s: 900 });
    expect([patch.status, patch.body.error.type]).toEqual([403, "insufficient_role"]);
    expect((await call(h, owner, "PATCH", `/v1/launches/${launch.id}`, { interval_s: 900 })).status).toBe(200);

    // Another tenant: the same 404 as an unknown id, on every route.
    const unknown = await call(h, outsider, "GET", "/v1/launches/lch_doesnotexist");
    for (const [method, path, body] of [
      ["GET", `/v1/launches/${launch.id}`, undefined],
      ["PATCH", `/v1/launches/${launch.id}`, { interval_s: 900 }],
      ["POST", `/v1/launches/${launch.id}/check`, undefined],
      ["POST", `/v1/launches/${launch.id}/retire`, undefined],
      ["POST", `/v1/launches/${launch.id}/nav`, undefined],
    ] as const) {
      const r = await call(h, outsider, method, path, body);
      expect([path, r.status, r.body]).toEqual([path, 404, unknown.body]);
    }
    expect((await call(h, outsider, "GET", "/v1/launches/mine")).body.launches).toEqual([]);
  });

  test("bad input is refused with the field named", async () => {
    h = launchesHarness();
    const me = tenant(h);
    const cases: [string, Record<string, unknown>, string][] = [
      ["no name", { name: undefined }, "name"],
      ["blank name", { name: "   " }, "name"],
      ["decimals too large", { decimals: 37 }, "decimals"],
      ["interval below the minimum", { interval_s: 10 }, "interval_s"],
      ["not a custodian", { custodian: { kind: "price", url: `${custodian.url}/p`, pointer: "/p" } }, "custodian.kind"],
      ["custodian without pointer", { custodian: { kind: "custodian", url: `${custodian.url}/r` } }, "custodian.pointer"],
      ["custodian at a non-http url", { custodian: { kind: "custodian", url: "ftp://example.com/r", pointer: "/r" } }, "custodian.url"],
      ["an unknown tool", { spec: { tools: ["mint"], passthrough: false } }, "spec.tools"],
      ["a float in the spec", { spec: { tools: [], passthrough: false, ratio: 1.5 } }, "spec"],
      ["no passthrough", { spec: { tools: [] } }, "spec.passthrough"],
      ["reveal_at without a zone", { reveal_at: "2026-12-01T00:00:00" }, "reveal_at"],
      ["a bad slug", { slug: "Bad Slug" }, "slug"],
      ["an unknown field", { colour: "gold" }, "colour"],
    ];
    for (const [what, over, param] of cases) {
      const r = await call(h, me, "POST", "/v1/launches", launchBody(custodian, over));
      expect([what, r.status]).toEqual([what, 400]);
      expect([what, r.body.error.param]).toEqual([what, expect.stringContaining(param)]);
    }
    const launch = await createLaunch(h, me, custodian);
    const bodies: [string, string, Record<string, unknown>, string][] = [
      ["token", "token", { chain: "devnet", token: "0x12" }, "token"],
      ["token", "unknown chain", { chain: "nowhere", token: "0x000000000000000000000000000000000000dEaD" }, "chain"],
      ["mint-authorizations", "zero amount", { amount: "0", to: "0x000000000000000000000000000000000000dEaD" }, "amount"],
      ["mint-authorizations", "bad address", { amount: "5", to: "0xabc" }, "to"],
      ["distributions", "fractional amount", { amount_units: "1.5", asset: "USD" }, "amount_units"],
      ["distributions", "asset with spaces", { amount_units: "1", asset: "U S D" }, "asset"],
    ];
    for (const [route, what, body, param] of bodies) {
      const r = await call(h, me, "POST", `/v1/launches/${launch.id}/${route}`, body);
      expect([what, r.status, r.body.error.param]).toEqual([what, 400, expect.stringContaining(param)]);
    }
    const redeem = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/redemptions`, { tx_hash: "0x12" });
    expect([redeem.status, redeem.body.error.type]).toEqual([409, "token_not_bound"]);
  });
});

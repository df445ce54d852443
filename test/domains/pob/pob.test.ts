/**
 * Proof of backing through HTTP (docs/pob.md): subjects watched against a stand-in custodian
 * whose answer changes (BACKED, UNDERBACKED, UNAVAILABLE — failures published too), the
 * canonical line re-hashed and its signature recovered with viem, checks paged with
 * before_seq, scheduled checks by moving the clock, PATCH of the allowed fields only, retire,
 * tenant isolation, credentials never shown, and bad input named field by field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { recoverMessageAddress, verifyMessage } from "viem";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { type Custodian, startCustodian } from "./custodian.ts";

const SEC = 1000;
const CREDENTIAL = "custodian-secret-7f3a9c";
const OTHER_CREDENTIAL = "rotated-secret-42b1";

let h: Harness;
let custodian: Custodian;
/** Every response body this file received: none may ever contain a credential. */
const seen: string[] = [];

beforeAll(() => {
  h = makeHarness({ config: (c) => void (c.webhooks.allow_private = true) });
  custodian = startCustodian();
});
afterAll(() => {
  h.close();
  custodian.stop();
});

async function call<T = any>(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }) {
  const r = await h.json<T>(method, path, init);
  seen.push(JSON.stringify(r.body));
  return r;
}

function tenant() {
  const { account, session } = accountWithSession(h.ctx);
  return { accountId: account.id, auth: bearer(session.token) };
}

let pathNo = 0;
/** A fresh custodian path per subject, so tests do not share answers. */
const freshPath = (what = "reserves") => `/${what}/${++pathNo}`;

async function create(auth: Record<string, string>, body: Record<string, unknown>) {
  const r = await call("POST", "/v1/pob/subjects", { headers: auth, body });
  if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A check now, after moving past the owner's 10-second cooldown. */
async function checkNow(auth: Record<string, string>, id: string) {
  h.clock.advance(10 * SEC);
  const r = await call("POST", `/v1/pob/subjects/${id}/check`, { headers: auth });
  if (r.status !== 201) throw new Error(`check failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function expectVerifiable(check: any) {
  expect(check.line_sha256).toBe(sha256(check.line));
  expect(await recoverMessageAddress({ message: check.line, signature: check.signature })).toBe(check.signer);
  expect(await verifyMessage({ address: check.signer, message: check.line, signature: check.signature })).toBe(true);
  expect(check.signer).toBe(h.ctx.signer.address);
}

describe("checks against a custodian whose answer changes", () => {
  test("BACKED, UNDERBACKED, then UNAVAILABLE (published too); each line re-hashes and its signature recovers", async () => {
    const { auth } = tenant();
    const path = freshPath();
    custodian.reports(path, "1500.250");
    const s = await create(auth, { name: "Acme Dollar Reserve", endpoint: custodian.url(`${path}?api_key=q-secret`), credential: CREDENTIAL, pointer: "/reserves/usd", claimed_supply: "1000.00" });
    expect(s).toMatchObject({
      slug: "acme-dollar-reserve",
      status: "active",
      interval_s: 3600,
      claimed_supply: "1000",
      supply_source: null,
      checks: 0,
      latest_check: null,
      public_path: "/v1/pob/public/acme-dollar-reserve",
      retired_at: null,
      reserve_source: { kind: "custodian", source_ref: custodian.url(path), pointer: "/reserves/usd", has_credential: true },
    });
    expect(s.id).toMatch(/^pob_/);

    const backed = await checkNow(auth, s.id);
    expect(backed).toMatchObject({ slug: s.slug, seq: 1, status: "BACKED", reserve: "1500.25", supply: "1000", reason: null, triggered_by: "owner" });
    const reserveSha = backed.evidence.reserve.content_sha256;
    expect(backed.evidence.supply).toBeNull();
    expect(backed.evidence.reserve).toMatchObject({ source_kind: "custodian", source_ref: custodian.url(path), label: "reserve", retrieved_at: backed.checked_at });
    expect(backed.line).toBe(`pob|v1|acme-dollar-reserve|1|${backed.checked_at}|BACKED|1500.25|1000|${reserveSha}|-`);
    // The fingerprint is over the exact bytes the custodian answered.
    expect(reserveSha).toBe(sha256(JSON.stringify({ as_of: "2026-11-21", reserves: { usd: "1500.250" } })));
    await expectVerifiable(backed);
    expect(custodian.authorizations(path)).toEqual([`Bearer ${CREDENTIAL}`]);

    custodian.reports(path, 999.99);
    const under = await checkNow(auth, s.id);
    expect(under).toMatchObject({ seq: 2, status: "UNDERBACKED", reserve: "999.99", supply: "1000", reason: null });
    await expectVerifiable(under);

    custodian.answer(path, { status: 503, body: { error: "maintenance" } });
    const down = await checkNow(auth, s.id);
    expect(down).toMatchObject({ seq: 3, status: "UNAVAILABLE", reserve: null, supply: null, reason: "reserve source: the source answered HTTP 503" });
    expect(down.evidence).toEqual({ reserve: null, supply: null });
    expect(down.line).toBe(`pob|v1|acme-dollar-reserve|3|${down.checked_at}|UNAVAILABLE|-|-|-|-`);
    await expectVerifiable(down);

    // Exactly covered is backed (reserve ≥ supply, compared exactly, no floats).
    custodian.reports(path, "1000.0000000000000000000000000000000000001");
    expect((await checkNow(auth, s.id)).status).toBe("BACKED");
    custodian.reports(path, "999.9999999999999999999999999999999999999");
    expect((await checkNow(auth, s.id)).status).toBe("UNDERBACKED");

    // The public history lists all of them, newest first, failures included.
    const pub = await call("GET", `/v1/pob/public/${s.slug}/checks`);
    expect(pub.status).toBe(200);
    expect(pub.body.checks.map((c: any) => [c.seq, c.status])).toEqual([
      [5, "UNDERBACKED"],
      [4, "BACKED"],
      [3, "UNAVAILABLE"],
      [2, "UNDERBACKED"],
      [1, "BACKED"],
    ]);
    expect(pub.body).toMatchObject({ slug: s.slug, next_before_seq: null });
    expect(pub.body.checks[2]).toEqual(down);

    const page = await call("GET", `/v1/pob/public/${s.slug}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ slug: s.slug, name: "Acme Dollar Reserve", status: "active", checks: 5, latest_check: { seq: 5 }, claimed_supply: "1000" });
    // The query string (where API keys hide) is never published.
    expect(JSON.stringify(page.body)).not.toContain("q-secret");
    expect(page.body.reserve_source).toEqual({ kind: "custodian", label: "reserve", source_ref: custodian.url(path), pointer: "/reserves/usd", chain: null, token: null });
  });

  test("a custodian answer without the figure, and a custodian that is gone, are UNAVAILABLE with their reason", async () => {
    const { auth } = tenant();
    const path = freshPath();
    custodian.answer(path, { status: 200, body: { reserves: { eur: "10" } } });
    const s = await create(auth, { name: "Figure Missing", endpoint: custodian.url(path), pointer: "/reserves/usd" });
    const c = await checkNow(auth, s.id);
    expect(c).toMatchObject({ status: "UNAVAILABLE", reason: "reserve source: the answer has nothing at /reserves/usd", reserve: null });
    expect(custodian.authorizations(path)).toEqual([""]);

    const gone = startCustodian();
    const s2 = await create(auth, { name: "Gone Custodian", endpoint: gone.url("/r"), pointer: "/reserves/usd" });
    gone.stop();
    const c2 = await checkNow(auth, s2.id);
    expect(c2).toMatchObject({ status: "UNAVAILABLE", reason: "reserve source: the source could not be reached" });
  });

  test("without a supply the reserve is REPORTED; with a supply source, its figure is compared and its evidence cited", async () => {
    const { auth } = tenant();
    const path = freshPath();
    custodian.reports(path, "250");
    const reported = await create(auth, { name: "Reported Only", endpoint: custodian.url(path), pointer: "/reserves/usd" });
    const r = await checkNow(auth, reported.id);
    expect(r).toMatchObject({ status: "REPORTED", reserve: "250", supply: null });
    expect(r.line).toEndWith(`|REPORTED|250|-|${r.evidence.reserve.content_sha256}|-`);

    const supplyPath = freshPath("supply");
    custodian.answer(supplyPath, { status: 200, body: { token: { outstanding: "200" } } });
    const s = await create(auth, {
      name: "Sourced Supply",
      endpoint: custodian.url(path),
      pointer: "/reserves/usd",
      supply_source: { kind: "custodian", url: custodian.url(supplyPath), pointer: "/token/outstanding", label: "transfer agent" },
    });
    expect(s.supply_source).toEqual({ kind: "custodian", label: "transfer agent", source_ref: custodian.url(supplyPath), pointer: "/token/outstanding", chain: null, token: null, has_credential: false });
    const backed = await checkNow(auth, s.id);
    expect(backed).toMatchObject({ status: "BACKED", reserve: "250", supply: "200" });
    expect(backed.evidence.supply).toMatchObject({ source_kind: "custodian", source_ref: custodian.url(supplyPath), label: "transfer agent" });
    expect(backed.line).toEndWith(`|BACKED|250|200|${backed.evidence.reserve.content_sha256}|${backed.evidence.supply.content_sha256}`);
    await expectVerifiable(backed);

    custodian.answer(supplyPath, { status: 200, body: { token: { outstanding: "250.000001" } } });
    expect(await checkNow(auth, s.id)).toMatchObject({ status: "UNDERBACKED", supply: "250.000001" });

    // The supply source down: UNAVAILABLE, no figures, though the reserve's evidence was retrieved.
    custodian.answer(supplyPath, { status: 500, body: {} });
    const down = await checkNow(auth, s.id);
    expect(down).toMatchObject({ status: "UNAVAILABLE", reserve: null, supply: null, reason: "supply source: the source answered HTTP 500" });
    expect(down.evidence.reserve).not.toBeNull();
    expect(down.evidence.supply).toBeNull();
    await expectVerifiable(down);
  });
});

describe("paging with before_seq", () => {
  test("owner and public pages walk every check once, newest first", async () => {
    const { auth } = tenant();
    const path = freshPath();
    const s = await create(auth, { name: "Paged Reserve", endpoint: custodian.url(path), pointer: "/reserves/usd", claimed_supply: "100" });
    const total = 7;
    for (let i = 0; i < total; i++) {
      // Every third check fails: failures are part of the history and are paged like the rest.
      if (i % 3 === 2) custodian.answer(path, { status: 502, body: {} });
      else custodian.reports(path, 90 + i * 5);
      await checkNow(auth, s.id);
    }
    for (const base of [`/v1/pob/public/${s.slug}/checks`, `/v1/pob/subjects/${s.id}/checks`]) {
      const headers = base.startsWith("/v1/pob/subjects") ? auth : {};
      const seqs: number[] = [];
      const statuses: string[] = [];
      let before: number | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const q: string = before === null ? "?limit=3" : `?limit=3&before_seq=${before}`;
        const r = await call("GET", `${base}${q}`, { headers });
        expect(r.status).toBe(200);
        expect(r.body.checks.length).toBeLessThanOrEqual(3);
        seqs.push(...r.body.checks.map((c: any) => c.seq));
        statuses.push(...r.body.checks.map((c: any) => c.status));
        before = r.body.next_before_seq;
        if (before === null) break;
        expect(before).toBe(seqs[seqs.length - 1]!);
      }
      expect(before).toBeNull();
      expect(seqs).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(statuses.filter((x) => x === "UNAVAILABLE")).toHaveLength(2);
    }
    const owner = await call("GET", `/v1/pob/subjects/${s.id}/checks?before_seq=3`, { headers: auth });
    expect(owner.body).toMatchObject({ subject_id: s.id, slug: s.slug, next_before_seq: null });
    expect(owner.body.checks.map((c: any) => c.seq)).toEqual([2, 1]);
    // Above the ceiling is clamped, not refused.
    expect((await call("GET", `/v1/pob/public/${s.slug}/checks?limit=5000`)).body.checks).toHaveLength(total);
  });

  test.each([
    ["before_seq=abc", "before_seq"],
    ["before_seq=0", "before_seq"],
    ["before_seq=-3", "before_seq"],
    ["limit=0", "limit"],
    ["limit=two", "limit"],
  ])("?%s is refused naming %s", async (q, param) => {
    const { auth } = tenant();
    const s = await create(auth, { name: "Query Checks", endpoint: custodian.url(freshPath()), pointer: "/reserves/usd" });
    for (const [path, headers] of [
      [`/v1/pob/public/${s.slug}/checks?${q}`, {}],
      [`/v1/pob/subjects/${s.id}/checks?${q}`, auth],
    ] as const) {
      const r = await call("GET", path, { headers });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
  });
});

describe("scheduled checks", () => {
  test("run every interval_s as the clock moves, stop at retire, and the published checks stay public", async () => {
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    const { auth } = tenant();
    const path = freshPath();
    custodian.reports(path, "500");
    const s = await create(auth, { name: "Scheduled Reserve", endpoint: custodian.url(path), pointer: "/reserves/usd", claimed_supply: "400", interval_s: 60 });
    expect(s.next_check_at).toBe(s.created_at);
    const count = async () => (await call("GET", `/v1/pob/subjects/${s.id}`, { headers: auth })).body.checks;

    // The first check falls due at creation: the next pass (at most 15 s away) runs it.
    h.clock.advance(15 * SEC);
    await h.ctx.scheduler.runDue();
    expect(await count()).toBe(1);
    const first = (await call("GET", `/v1/pob/subjects/${s.id}`, { headers: auth })).body;
    expect(first.latest_check).toMatchObject({ seq: 1, status: "BACKED", triggered_by: "schedule" });
    expect(first.next_check_at).toBe(new Date(Date.parse(first.latest_check.checked_at) + 60 * SEC).toISOString());

    // Not yet due: nothing runs.
    h.clock.advance(45 * SEC);
    await h.ctx.scheduler.runDue();
    expect(await count()).toBe(1);

    // Each interval that passes brings one more check; the answer it publishes is the custodian's at that time.
    custodian.answer(path, { status: 503, body: {} });
    h.clock.advance(15 * SEC);
    await h.ctx.scheduler.runDue();
    expect(await count()).toBe(2);
    custodian.reports(path, "300");
    h.clock.advance(60 * SEC);
    await h.ctx.scheduler.runDue();
    expect(await count()).toBe(3);
    const pub = (await call("GET", `/v1/pob/public/${s.slug}/checks`)).body.checks;
    expect(pub.map((c: any) => [c.seq, c.status, c.triggered_by])).toEqual([
      [3, "UNDERBACKED", "schedule"],
      [2, "UNAVAILABLE", "schedule"],
      [1, "BACKED", "schedule"],
    ]);
    for (const c of pub) await expectVerifiable(c);

    // Retire: no more checks, however long the clock runs; everything published stays public.
    const retired = await call("POST", `/v1/pob/subjects/${s.id}/retire`, { headers: auth });
    expect(retired.status).toBe(200);
    expect(retired.body).toMatchObject({ status: "retired", next_check_at: null, retired_at: new Date(h.clock.now()).toISOString(), checks: 3 });
    const again = await call("POST", `/v1/pob/subjects/${s.id}/retire`, { headers: auth });
    expect(again.body).toEqual(retired.body);
    const callsBefore = custodian.authorizations(path).length;
    h.clock.advance(10 * 60 * SEC);
    await h.ctx.scheduler.runDue();
    expect(await count()).toBe(3);
    expect(custodian.authorizations(path)).toHaveLength(callsBefore);

    expect((await call("GET", `/v1/pob/public/${s.slug}/checks`)).body.checks).toEqual(pub);
    expect((await call("GET", `/v1/pob/public/${s.slug}`)).body).toMatchObject({ status: "retired", checks: 3, latest_check: pub[0] });
    const dir = await call("GET", "/v1/pob/directory");
    expect(dir.status).toBe(200);
    expect(dir.body.ordered_by).toBe("created_at_desc");
    expect(dir.body.count).toBe(dir.body.subjects.length);
    expect(dir.body.subjects.find((x: any) => x.slug === s.slug)).toMatchObject({ status: "retired", checks: 3 });
    expect(dir.body.subjects.every((x: any) => !("id" in x))).toBe(true);

    // A retired subject is neither checked nor changed on request.
    for (const [method, suffix, body] of [
      ["POST", "/check", undefined],
      ["PATCH", "", { name: "Revived" }],
    ] as const) {
      h.clock.advance(10 * SEC);
      const r = await call(method, `/v1/pob/subjects/${s.id}${suffix}`, { headers: auth, body });
      expect(r.status).toBe(409);
      expect(r.body.error.type).toBe("subject_retired");
    }
  });
});

describe("PATCH /v1/pob/subjects/:id", () => {
  test("changes name, endpoint, credential, pointer and interval_s; the slug stays", async () => {
    const { auth } = tenant();
    const path = freshPath();
    custodian.reports(path, "10");
    const s = await create(auth, { name: "Patchable Reserve", endpoint: custodian.url(path), credential: CREDENTIAL, pointer: "/reserves/usd", interval_s: 600 });
    await checkNow(auth, s.id);

    const newPath = freshPath();
    custodian.answer(newPath, { status: 200, body: { totals: { held: "77" } } });
    const r = await call("PATCH", `/v1/pob/subjects/${s.id}`, {
      headers: auth,
      body: { name: "Renamed Reserve", endpoint: custodian.url(newPath), pointer: "/totals/held", credential: OTHER_CREDENTIAL, interval_s: 120 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "Renamed Reserve",
      slug: "patchable-reserve",
      interval_s: 120,
      reserve_source: { source_ref: custodian.url(newPath), pointer: "/totals/held", has_credential: true },
    });
    // The new interval counts from the latest check.
    expect(r.body.next_check_at).toBe(new Date(Date.parse(r.body.latest_check.checked_at) + 120 * SEC).toISOString());
    const c = await checkNow(auth, s.id);
    expect(c).toMatchObject({ reserve: "77", status: "REPORTED" });
    expect(c.line.split("|")[2]).toBe("patchable-reserve");
    expect(custodian.authorizations(newPath)).toEqual([`Bearer ${OTHER_CREDENTIAL}`]);

    // credential: null removes it; an empty body changes nothing.
    const cleared = await call("PATCH", `/v1/pob/subjects/${s.id}`, { headers: auth, body: { credential: null } });
    expect(cleared.body.reserve_source.has_credential).toBe(false);
    await checkNow(auth, s.id);
    expect(custodian.authorizations(newPath)).toEqual([`Bearer ${OTHER_CREDENTIAL}`, ""]);
    const same = await call("PATCH", `/v1/pob/subjects/${s.id}`, { headers: auth, body: {} });
    expect(same.status).toBe(200);
    expect(same.body.name).toBe("Renamed Reserve");

    // The old name's slug stays taken by this subject: a new subject of that name gets the next one.
    const twin = await create(auth, { name: "Patchable Reserve", endpoint: custodian.url(path), pointer: "/reserves/usd" });
    expect(twin.slug).toBe("patchable-reserve-2");
  });

  test.each([
    [{ slug: "mine" }, "slug"],
    [{ status: "retired" }, "status"],
    [{ claimed_supply: "5" }, "claimed_supply"],
    [{ supply_source: { kind: "custodian" } }, "supply_source"],
    [{ id: "pob_x" }, "id"],
    [{ interval: 120 }, "interval"],
    [{ name: "ok", label: "x" }, "label"],
    [{ interval_s: 59 }, "interval_s"],
    [{ interval_s: 10_000_000 }, "interval_s"],
    [{ name: "   " }, "name"],
    [{ endpoint: "ftp://example.com/r" }, "endpoint"],
    [{ endpoint: "not a url" }, "endpoint"],
    [{ pointer: "reserves" }, "pointer"],
    [{ credential: "" }, "credential"],
  ])("PATCH %j is refused naming %s", async (body, param) => {
    const { auth } = tenant();
    const s = await create(auth, { name: "Strict Patch", endpoint: custodian.url(freshPath()), pointer: "/reserves/usd" });
    const r = await call("PATCH", `/v1/pob/subjects/${s.id}`, { headers: auth, body });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
    const after = await call("GET", `/v1/pob/subjects/${s.id}`, { headers: auth });
    expect(after.body).toEqual(s);
  });
});

describe("tenancy and secrets", () => {
  test("another account's subject answers exactly like an unknown id", async () => {
    const owner = tenant();
    const stranger = tenant();
    const s = await create(owner.auth, { name: "Private Subject", endpoint: custodian.url(freshPath()), pointer: "/reserves/usd" });
    const probes: [string, string, unknown][] = [
      ["GET", "", undefined],
      ["GET", "/checks", undefined],
      ["POST", "/check", undefined],
      ["PATCH", "", { name: "Mine now" }],
      ["POST", "/retire", undefined],
    ];
    for (const [method, suffix, body] of probes) {
      const theirs = await call(method, `/v1/pob/subjects/${s.id}${suffix}`, { headers: stranger.auth, body });
      const unknown = await call(method, `/v1/pob/subjects/pob_doesnotexist${suffix}`, { headers: stranger.auth, body });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
    }
    const list = await call("GET", "/v1/pob/subjects", { headers: stranger.auth });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ subjects: [] });
    const mine = await call("GET", "/v1/pob/subjects", { headers: owner.auth });
    expect(mine.body.subjects.map((x: any) => x.id)).toEqual([s.id]);
    expect((await call("GET", `/v1/pob/subjects/${s.id}`, { headers: owner.auth })).body.status).toBe("active");
    // Unknown slugs are 404 on the public side; session routes need a session.
    expect((await call("GET", "/v1/pob/public/no-such-slug")).status).toBe(404);
    expect((await call("GET", "/v1/pob/public/no-such-slug/checks")).status).toBe(404);
    expect((await call("GET", "/v1/pob/subjects")).status).toBe(401);
  });

  test("an owner's check-now is refused within 10 seconds of the previous one", async () => {
    const { auth } = tenant();
    const s = await create(auth, { name: "Cooldown Subject", endpoint: custodian.url(freshPath()), pointer: "/reserves/usd" });
    await checkNow(auth, s.id);
    h.clock.advance(4 * SEC);
    const r = await call("POST", `/v1/pob/subjects/${s.id}/check`, { headers: auth });
    expect(r.status).toBe(429);
    expect(r.body.error.retry_after_secs).toBe(6);
  });

  test("slugs come from names, are unique across accounts, and fall back when a name has no letters", async () => {
    const a = tenant();
    const b = tenant();
    const x = await create(a.auth, { name: "Ünïcode Trust — Reserve #1", endpoint: custodian.url(freshPath()), pointer: "/reserves/usd" });
    expect(x.slug).toBe("unicode-trust-reserve-1");
    const y = await create(b.auth, { name: "unicode trust reserve 1", endpoint: custodian.url(freshPath()), pointer: "/reserves/usd" });
    expect(y.slug).toBe("unicode-trust-reserve-1-2");
    const z = await create(b.auth, { name: "$$$", endpoint: custodian.url(freshPath()), pointer: "/reserves/usd" });
    expect(z.slug).toMatch(/^subject(-\d+)?$/);
  });

  test("no response of this file ever carried a credential", () => {
    expect(seen.length).toBeGreaterThan(50);
    for (const text of seen) {
      expect(text).not.toContain(CREDENTIAL);
      expect(text).not.toContain(OTHER_CREDENTIAL);
    }
  });
});

describe("POST /v1/pob/subjects refuses bad input, naming the field", () => {
  const ok = () => ({ name: "Bad Input", endpoint: custodian.url("/reserves/bad"), pointer: "/reserves/usd" });
  test.each([
    [{ name: undefined }, "name"],
    [{ name: "" }, "name"],
    [{ name: "  \t " }, "name"],
    [{ name: "x".repeat(101) }, "name"],
    [{ endpoint: undefined }, "endpoint"],
    [{ endpoint: "ftp://127.0.0.1/r" }, "endpoint"],
    [{ endpoint: "no scheme" }, "endpoint"],
    [{ pointer: undefined }, "pointer"],
    [{ pointer: "reserves/usd" }, "pointer"],
    [{ credential: "" }, "credential"],
    [{ interval_s: 30 }, "interval_s"],
    [{ interval_s: 1.5 }, "interval_s"],
    [{ interval_s: "3600" }, "interval_s"],
    [{ claimed_supply: "1e6" }, "claimed_supply"],
    [{ claimed_supply: "-5" }, "claimed_supply"],
    [{ claimed_supply: 1000 }, "claimed_supply"],
    [{ claimed_supply: "10", supply_source: { kind: "erc20_supply", chain: "devnet", token: `0x${"1".repeat(40)}` } }, "supply_source"],
    [{ supply_source: { kind: "price", url: "http://127.0.0.1/p", pointer: "/usd" } }, "supply_source.kind"],
    [{ supply_source: { kind: "third_party_attestation", url: "http://127.0.0.1/a" } }, "supply_source.pointer"],
    [{ supply_source: { kind: "custodian", url: "http://127.0.0.1/s" } }, "supply_source.pointer"],
    [{ supply_source: { kind: "erc20_supply", chain: "no-such-chain", token: `0x${"1".repeat(40)}` } }, "supply_source.chain"],
    [{ supply_source: { kind: "bank" } }, "supply_source.kind"],
    [{ slug: "my-slug" }, "slug"],
    [{ reserve: "5" }, "reserve"],
  ])("%j → 400 naming %s", async (change, param) => {
    const { auth } = tenant();
    const body: Record<string, unknown> = { ...ok(), ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete body[k];
    const r = await call("POST", "/v1/pob/subjects", { headers: auth, body });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
    expect((await call("GET", "/v1/pob/subjects", { headers: auth })).body.subjects).toEqual([]);
  });

  test("an account holds at most pob.max_active_subjects active subjects; retiring frees a place", async () => {
    const { auth } = tenant();
    const max = h.ctx.config.pob.max_active_subjects;
    let last: any = null;
    for (let i = 0; i < max; i++) last = await create(auth, { ...ok(), name: `Many ${i}` });
    const over = await call("POST", "/v1/pob/subjects", { headers: auth, body: { ...ok(), name: "One Too Many" } });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "subject_limit_reached", limit: max });
    await call("POST", `/v1/pob/subjects/${last.id}/retire`, { headers: auth });
    expect((await call("POST", "/v1/pob/subjects", { headers: auth, body: { ...ok(), name: "One Too Many" } })).status).toBe(201);
  });
});

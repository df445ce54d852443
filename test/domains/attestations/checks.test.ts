/**
 * POST /v1/attestations/check, GET one, /history, /evidence and /refresh against the devnet's
 * TestUSDT supply and a stand-in custodian: VERIFIED, DISCREPANCY over tolerance, UNAVAILABLE
 * when the custodian is down, STALE by moving the clock; figures recomputed here with integer
 * math; signatures recovered with viem; history growing (never overwritten); one price whatever
 * the outcome; another tenant's asset answering 404; bad input naming the field.
 */
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { type Devnet, startDevnet } from "../../support/devnet.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import type { Harness } from "../../support/harness.ts";
import {
  attestationsHarness,
  balance,
  check,
  coverBody,
  CUSTODIAN_SECRET,
  type Custodian,
  PRICE,
  refresh,
  reservesSource,
  startCustodian,
  supplySource,
  tenant,
  totalSupply,
  verifiedPayload,
  type World,
} from "./attestations-support.ts";

const TOKENS = 1_000_000n;
let chain: Devnet;
let token: Address;
let custodian: Custodian;
let h: Harness;
let w: World;

beforeAll(async () => {
  chain = await startDevnet();
  token = await chain.deployToken();
  await chain.mint(token, chain.accounts[1]!, TOKENS * 1_000_000n);
  custodian = startCustodian();
});
afterAll(async () => {
  custodian?.stop();
  await chain?.stop();
});
afterEach(() => h?.close());

function setUp(price = PRICE) {
  h = attestationsHarness(chain, token, price);
  w = { h, chain, token, custodian };
  custodian.state.down = false;
  custodian.state.reserves = "1000000.5";
  custodian.state.reportedSupply = "1000000";
  return tenant(h);
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
/** Decimal text floored to millionths, as the doc says: integer math only. */
const micro = (decimal: string) => {
  const [int, frac = ""] = decimal.split(".");
  return BigInt(int!) * 1_000_000n + BigInt((frac + "000000").slice(0, 6));
};

describe("POST /v1/attestations/check", () => {
  test("VERIFIED: the custodian's reserves cover the on-chain supply; figures, references, signature and charge", async () => {
    const a = setUp();
    const before = balance(h, a.accountId);
    const r = await check(h, a, coverBody(w));
    expect(r.status).toBe(201);
    const supplyUnits = await totalSupply(w); // 6 decimals: base units are already millionths
    const reserves = micro("1000000.5");
    expect(r.body).toMatchObject({
      asset_id: "usdx",
      seq: 1,
      subject_ref: "USDX (TestUSDT on devnet)",
      status: "VERIFIED",
      status_at_check: "VERIFIED",
      public: false,
      public_url: null,
      supersedes: null,
      latest: true,
      claim: { kind: "reserves_cover_supply", tolerance_bps: 0, max_age_secs: 3600, declared_figure: null },
      reconciliation: {
        reported_from: "sources",
        reported_micro_units: reserves.toString(),
        onchain_supply_micro_units: supplyUnits.toString(),
        delta_bps: Number(((reserves - supplyUnits) * 10_000n) / supplyUnits),
        tolerance_bps: 0,
        within_tolerance: true,
        unit_scale: 6,
        rounding: "floor",
      },
      unavailable: [],
      reasons: [],
      freshness: { age_secs: 0, max_age_secs: 3600, fresh: true },
      methodology_version: "asset-attestation/1",
      checked_at: new Date(h.clock.now()).toISOString(),
      expires_at: new Date(h.clock.now() + 3600_000).toISOString(),
    });
    expect(r.body.attestation_id).toMatch(/^att_/);
    // Sources are shown without their URL's query (it may carry a key) and never with a credential.
    expect(r.body.sources[0]).toEqual({ kind: "custodian", label: "custodian reserves", source_ref: custodian.url("/reserves"), pointer: "/reserves/usd", chain: null, token: null, has_credential: false });
    expect(JSON.stringify(r.body)).not.toContain("query-secret");
    expect(r.body.evidence_references.map((e: any) => e.source_kind)).toEqual(["custodian", "erc20_supply"]);

    const payload = await verifiedPayload(h, r.body);
    expect(payload).toEqual(r.body.payload);
    expect(payload).toMatchObject({
      v: 1,
      type: "asset-attestation",
      attestation_id: r.body.attestation_id,
      asset_id: "usdx",
      seq: 1,
      supersedes: null,
      status: "VERIFIED",
      claim: { kind: "reserves_cover_supply", tolerance_bps: 0, max_age_secs: 3600, issuer_declared: false },
      reconciliation: r.body.reconciliation,
      evidence_references: r.body.evidence_references,
      draws_on_sealed_data: false,
      public: false,
      methodology_version: "asset-attestation/1",
      verifier_version: h.ctx.version,
      charge_receipt_id: r.body.charge.receipt_id,
    });

    // The metered check's own receipt: kind attestation, billed the configured price.
    expect(r.body.charge.cost_micro_usd).toBe(PRICE);
    const charge = await verifiedPayload(h, { receipt: r.body.charge.receipt, signature: r.body.charge.signature, signer: r.body.charge.signer });
    expect(charge).toMatchObject({ kind: "attestation", status: "VERIFIED", resource: r.body.attestation_id, cost_micro_usd: PRICE });
    expect(charge.attestations.attestation).toEqual({ asset_id: "usdx", attestation_id: r.body.attestation_id, status: "VERIFIED", methodology_version: "asset-attestation/1" });
    expect(balance(h, a.accountId)).toBe(before - PRICE);

    // GET answers the same version for free.
    const got = await h.json("GET", "/v1/attestations/usdx", a.auth);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
    expect(balance(h, a.accountId)).toBe(before - PRICE);
  });

  test("DISCREPANCY when the reported supply differs from the on-chain supply by more than tolerance_bps; exactly at the tolerance is VERIFIED", async () => {
    const a = setUp();
    const supplyUnits = await totalSupply(w);
    custodian.state.reportedSupply = "1010000"; // 1% above: 100 bps
    const body = (asset: string, tolerance: number) => ({
      asset_id: asset,
      subject_ref: "USDX supply",
      claim: { kind: "reported_supply_matches", tolerance_bps: tolerance },
      sources: [{ kind: "custodian", url: custodian.url("/supply"), pointer: "/reported_supply" }, supplySource(token)],
    });
    const over = await check(h, a, body("supply-50", 50));
    expect(over.status).toBe(201);
    const reported = micro("1010000");
    expect(over.body).toMatchObject({
      status: "DISCREPANCY",
      status_at_check: "DISCREPANCY",
      reconciliation: { reported_micro_units: reported.toString(), onchain_supply_micro_units: supplyUnits.toString(), delta_bps: 100, tolerance_bps: 50, within_tolerance: false },
      reasons: ["the reported supply differs from the on-chain supply by more than tolerance_bps"],
    });
    expect((await verifiedPayload(h, over.body)).status).toBe("DISCREPANCY");
    const at = await check(h, a, body("supply-100", 100));
    expect(at.body).toMatchObject({ status: "VERIFIED", reconciliation: { delta_bps: 100, within_tolerance: true } });

    // Reserves short of the supply by 2% against a 1% tolerance.
    custodian.state.reserves = "980000";
    const short = await check(h, a, coverBody(w, { asset_id: "short", claim: { kind: "reserves_cover_supply", tolerance_bps: 100 } }));
    expect(short.body).toMatchObject({ status: "DISCREPANCY", reconciliation: { delta_bps: -200, within_tolerance: false }, reasons: ["the reserves fall short of the on-chain supply by more than tolerance_bps"] });
  });

  test("UNAVAILABLE when the custodian is down: no figures, the reason named, the same price as a VERIFIED check", async () => {
    const a = setUp();
    const start = balance(h, a.accountId);
    const ok = await check(h, a, coverBody(w, { asset_id: "up" }));
    expect(ok.body.status).toBe("VERIFIED");
    custodian.state.down = true;
    const down = await check(h, a, coverBody(w, { asset_id: "down" }));
    expect(down.status).toBe(201);
    expect(down.body).toMatchObject({
      status: "UNAVAILABLE",
      status_at_check: "UNAVAILABLE",
      reconciliation: null,
      unavailable: [{ source_kind: "custodian", source_ref: custodian.url("/reserves"), label: "custodian reserves", reason: "the source answered HTTP 503" }],
      reasons: [`custodian ${custodian.url("/reserves")}: the source answered HTTP 503`],
    });
    // The supply that did answer is still cited, but no figure stands in for the missing one.
    expect(down.body.evidence_references.map((e: any) => e.source_kind)).toEqual(["erc20_supply"]);
    const payload = await verifiedPayload(h, down.body);
    expect(payload).toMatchObject({ status: "UNAVAILABLE", reconciliation: null });
    expect([ok.body.charge.cost_micro_usd, down.body.charge.cost_micro_usd]).toEqual([PRICE, PRICE]);
    expect(balance(h, a.accountId)).toBe(start - 2 * PRICE);
    // UNAVAILABLE never turns STALE: only a VERIFIED version ages.
    h.clock.advance(2 * 3600_000);
    expect((await h.json("GET", "/v1/attestations/down", a.auth)).body).toMatchObject({ status: "UNAVAILABLE", freshness: { fresh: false } });
  });

  test("a credentialed custodian gets its bearer token; the record shows only has_credential", async () => {
    const a = setUp();
    const r = await check(h, a, coverBody(w, { asset_id: "private", sources: [{ kind: "custodian", url: custodian.url("/private/reserves"), pointer: "/reserves/usd", credential: CUSTODIAN_SECRET }, supplySource(token)] }));
    expect(r.body.status).toBe("VERIFIED");
    expect(r.body.sources[0].has_credential).toBe(true);
    expect(r.body.payload.draws_on_sealed_data).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(CUSTODIAN_SECRET);
    expect(custodian.hits.filter((x) => x.path === "/private/reserves").at(-1)?.authorization).toBe(`Bearer ${CUSTODIAN_SECRET}`);
  });

  test("an issuer declaration stands in for reporting sources, and says so", async () => {
    const a = setUp();
    const r = await check(h, a, { asset_id: "declared", subject_ref: "USDX", claim: { kind: "reserves_cover_supply", declared_figure: "1000000.0000019" }, sources: [supplySource(token)] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: "VERIFIED", claim: { declared_figure: "1000000.0000019" }, reconciliation: { reported_from: "issuer_declaration", reported_micro_units: "1000000000001" } });
    expect(r.body.payload.claim.issuer_declared).toBe(true);
  });

  test("402 when the account cannot pay: nothing retrieved, nothing stored", async () => {
    setUp();
    const poor = tenant(h, 0);
    const hitsBefore = custodian.hits.length;
    const r = await check(h, poor, coverBody(w));
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    expect(custodian.hits.length).toBe(hitsBefore);
    expect((await h.json("GET", "/v1/attestations/usdx", poor.auth)).status).toBe(404);
  });

  test("bad input names the field and bills nothing", async () => {
    const a = setUp();
    const before = balance(h, a.accountId);
    const ok = coverBody(w);
    const custodianSrc = reservesSource(custodian);
    const cases: [unknown, string][] = [
      [{ ...ok, asset_id: undefined }, "asset_id"],
      [{ ...ok, asset_id: "has space" }, "asset_id"],
      [{ ...ok, asset_id: "check" }, "asset_id"],
      [{ ...ok, subject_ref: "" }, "subject_ref"],
      [{ ...ok, public: "yes" }, "public"],
      [{ ...ok, extra: 1 }, "extra"],
      [{ ...ok, claim: { kind: "reserves_exceed" } }, "claim.kind"],
      [{ ...ok, claim: { kind: "reserves_cover_supply", tolerance_bps: 10_001 } }, "claim.tolerance_bps"],
      [{ ...ok, claim: { kind: "reserves_cover_supply", tolerance_bps: "5" } }, "claim.tolerance_bps"],
      [{ ...ok, claim: { kind: "reserves_cover_supply", max_age_secs: 10 } }, "claim.max_age_secs"],
      [{ ...ok, claim: { kind: "reserves_cover_supply", declared_figure: "1e6" }, sources: [supplySource(token)] }, "claim.declared_figure"],
      [{ ...ok, claim: { kind: "reserves_cover_supply", declared_figure: "5" } }, "claim.declared_figure"],
      [{ ...ok, sources: [] }, "sources"],
      [{ ...ok, sources: [custodianSrc] }, "sources"],
      [{ ...ok, sources: [custodianSrc, supplySource(token), supplySource(token)] }, "sources"],
      [{ ...ok, sources: [supplySource(token)] }, "sources"],
      [{ ...ok, sources: [{ kind: "third_party_attestation", url: custodian.url("/report.json") }, supplySource(token)] }, "sources"],
      [{ ...ok, sources: [{ kind: "price", url: custodian.url("/reserves"), pointer: "/reserves/usd" }, supplySource(token)] }, "sources[0].kind"],
      [{ ...ok, sources: [{ kind: "custodian", url: custodian.url("/reserves") }, supplySource(token)] }, "sources[0].pointer"],
      [{ ...ok, sources: [custodianSrc, { kind: "erc20_supply", chain: "mainnet", token }] }, "sources[1].chain"],
      [{ ...ok, sources: [{ kind: "custodian", url: "ftp://x.test/r", pointer: "/a" }, supplySource(token)] }, "sources[0].url"],
    ];
    for (const [body, param] of cases) {
      const r = await check(h, a, body);
      expect([param, r.status, r.body.error?.param]).toEqual([param, 400, param]);
    }
    expect(balance(h, a.accountId)).toBe(before);
    expect((await h.json("GET", "/v1/attestations/usdx", a.auth)).status).toBe(404);
  });
});

describe("reads: STALE, history, evidence, tenancy", () => {
  test("a VERIFIED version read after its window reports STALE and keeps status_at_check", async () => {
    const a = setUp();
    const r = await check(h, a, coverBody(w, { claim: { kind: "reserves_cover_supply", max_age_secs: 600 } }));
    h.clock.advance(599_000);
    expect((await h.json("GET", "/v1/attestations/usdx", a.auth)).body).toMatchObject({ status: "VERIFIED", freshness: { age_secs: 599, fresh: true } });
    h.clock.advance(1_000);
    const stale = await h.json("GET", "/v1/attestations/usdx", a.auth);
    expect(stale.body).toMatchObject({ status: "STALE", status_at_check: "VERIFIED", freshness: { age_secs: 600, max_age_secs: 600, fresh: false } });
    // The record itself did not change: same signed statement.
    expect(stale.body.receipt).toBe(r.body.receipt);
    expect(stale.body.payload.status).toBe("VERIFIED");
  });

  test("refresh retrieves again as the next version; history grows newest first and old versions are never overwritten", async () => {
    const a = setUp();
    const first = await check(h, a, coverBody(w));
    h.clock.advance(60_000);
    custodian.state.reserves = "990000";
    const second = await refresh(h, a, "usdx");
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ seq: 2, status: "DISCREPANCY", supersedes: first.body.attestation_id, latest: true, claim: first.body.claim });
    expect(second.body.charge.cost_micro_usd).toBe(PRICE);
    expect((await verifiedPayload(h, second.body)).supersedes).toBe(first.body.attestation_id);
    h.clock.advance(60_000);
    custodian.state.reserves = "1000000";
    const third = await refresh(h, a, "usdx");
    expect(third.body).toMatchObject({ seq: 3, status: "VERIFIED", supersedes: second.body.attestation_id });

    const hist = await h.json("GET", "/v1/attestations/usdx/history", a.auth);
    expect(hist.status).toBe(200);
    expect(hist.body).toMatchObject({ asset_id: "usdx", subject_ref: "USDX (TestUSDT on devnet)" });
    expect(hist.body.note).toContain("never overwritten");
    expect(hist.body.disclaimer).toContain("not an audit");
    expect(hist.body.versions.map((v: any) => [v.seq, v.status_at_check, v.latest])).toEqual([
      [3, "VERIFIED", true],
      [2, "DISCREPANCY", false],
      [1, "VERIFIED", false],
    ]);
    // The first version reads exactly as it did when it was made (only its age moved).
    const v1 = hist.body.versions[2];
    expect([v1.attestation_id, v1.receipt, v1.signature, v1.reconciliation]).toEqual([first.body.attestation_id, first.body.receipt, first.body.signature, first.body.reconciliation]);
    for (const v of hist.body.versions) expect((await verifiedPayload(h, v)).seq).toBe(v.seq);

    expect((await h.json("GET", "/v1/attestations/usdx/history?limit=2", a.auth)).body.versions.map((v: any) => v.seq)).toEqual([3, 2]);
    expect((await h.json("GET", "/v1/attestations/usdx/history?limit=200", a.auth)).body.versions).toHaveLength(3);
    for (const bad of ["0", "201", "x"]) {
      const r = await h.json("GET", `/v1/attestations/usdx/history?limit=${bad}`, a.auth);
      expect([bad, r.status, r.body.error.param]).toEqual([bad, 400, "limit"]);
    }
  });

  test("evidence: references only by default; include_body=true returns the exact bytes, matching their sha256; ?seq= picks a version", async () => {
    const a = setUp();
    await check(h, a, coverBody(w));
    custodian.state.reserves = "1000001";
    await refresh(h, a, "usdx");
    const refs = await h.json("GET", "/v1/attestations/usdx/evidence", a.auth);
    expect(refs.status).toBe(200);
    expect(refs.body).toMatchObject({ asset_id: "usdx", seq: 2, unavailable: [] });
    expect(refs.body.evidence).toHaveLength(2);
    for (const e of refs.body.evidence) expect(Object.keys(e).sort()).toEqual(["content_sha256", "evidence_id", "label", "retrieved_at", "source_kind", "source_ref"]);

    const withBody = await h.json("GET", "/v1/attestations/usdx/evidence?include_body=true&seq=1", a.auth);
    expect(withBody.body.seq).toBe(1);
    const [cust, supply] = withBody.body.evidence;
    const custBytes = Buffer.from(cust.body.body_b64, "base64");
    expect(sha256(custBytes)).toBe(cust.content_sha256);
    expect(JSON.parse(custBytes.toString("utf8"))).toEqual({ custodian: "Stand-in Trust", reserves: { usd: "1000000.5" } });
    const supplyDoc = JSON.parse(Buffer.from(supply.body.body_b64, "base64").toString("utf8"));
    expect(sha256(Buffer.from(supply.body.body_b64, "base64"))).toBe(supply.content_sha256);
    expect(supplyDoc).toMatchObject({ chain: "devnet", chain_id: 31337, token, total_supply_units: (await totalSupply(w)).toString(), decimals: 6 });
    expect((await h.json("GET", "/v1/attestations/usdx/evidence?seq=9", a.auth)).status).toBe(404);
  });

  test("another tenant's asset_id answers 404 exactly like an unknown one; two accounts may use one asset_id independently", async () => {
    const a = setUp();
    const b = tenant(h);
    await check(h, a, coverBody(w));
    const unknown = await h.json("GET", "/v1/attestations/nope", b.auth);
    expect(unknown.status).toBe(404);
    for (const [method, path] of [
      ["GET", "/v1/attestations/usdx"],
      ["GET", "/v1/attestations/usdx/history"],
      ["GET", "/v1/attestations/usdx/evidence"],
      ["POST", "/v1/attestations/usdx/refresh"],
    ] as const) {
      const r = await h.json(method, path, b.auth);
      expect([path, r.status, r.body]).toEqual([path, 404, unknown.body]);
    }
    custodian.state.reserves = "1";
    const own = await check(h, b, coverBody(w));
    expect(own.body).toMatchObject({ seq: 1, status: "DISCREPANCY" });
    expect((await h.json("GET", "/v1/attestations/usdx", a.auth)).body).toMatchObject({ seq: 1, status: "VERIFIED" });
  });

  test("a key without the records scope is refused", async () => {
    setUp();
    const { account } = accountWithSession(h.ctx);
    const key = apiKeyFor(h.ctx, account.id, { scopes: ["inference"] });
    const r = await h.json("GET", "/v1/attestations/usdx", { headers: { authorization: `Bearer ${key.token}` } });
    expect([r.status, r.body.error.type]).toEqual([403, "missing_scope"]);
  });
});

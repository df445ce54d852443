/**
 * NAV records through HTTP against stand-in price and custodian servers and a real local chain
 * (TestUSDT's totalSupply() is the on-chain supply): VERIFIED, DISCREPANCY (supply and prices),
 * UNAVAILABLE without figures, STALE by moving the clock and refreshing, versions never
 * overwritten, publication and its one 404, another tenant's records, signatures checked with
 * viem, and figures recomputed here with BigInt.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, recoverMessageAddress } from "viem";
import { canonicalJson } from "../../../src/core/canonical-json.ts";
import { type Devnet, startDevnet } from "../../support/devnet.ts";
import { CALC_PRICE, CUSTODY_TOKEN, expectedGross, floorDiv, navWorld, type NavWorld, priceSource, type Quotes, sha256, startQuotes, supplySource, tenant, USD } from "./nav-support.ts";

let chain: Devnet;
let quotes: Quotes;
let holder: Address;

beforeAll(async () => {
  chain = await startDevnet();
  holder = chain.accounts[1]!;
  quotes = startQuotes();
});
afterAll(async () => {
  quotes?.stop();
  await chain?.stop();
});

let w: NavWorld | undefined;
afterEach(() => {
  w?.h.close();
  w = undefined;
});

/** A fresh token with `tokens` whole units minted: its totalSupply() in micro-units is tokens × 10^6. */
async function tokenWithSupply(tokens: bigint): Promise<Address> {
  const token = await chain.deployToken();
  await chain.mint(token, holder, tokens * 1_000_000n);
  return token;
}

const PAYLOAD_FIELDS = [
  "asset_id", "book_commitment", "calculation_timestamp", "evidence_references", "expires_at", "freshness", "gross_asset_value_micro_usd", "liabilities_micro_usd",
  "methodology_version", "nav_id", "nav_per_unit_micro_usd", "privacy_mode", "reasons", "reconciliation", "rounding", "seq", "status", "supply_micro_units",
  "total_nav_micro_usd", "trust_model", "type", "unit_scale", "v", "valuation_timestamp", "verifier_version",
].sort();
const RECORD_FIELDS = ["asset_id", "created_at", "nav_id", "payload", "published_at", "receipt", "seq", "signature", "signer", "status", "verify"].sort();

/** A book of two positions: T-bill priced by two sources, gold by one. */
function book(token: Address, overrides: Record<string, unknown> = {}) {
  return {
    asset_id: "fund-a",
    holdings: [
      { instrument: "TBILL-2026-XYZ", quantity: "1234.567", price_sources: [priceSource(quotes, "tbill-a", "tbill desk A"), priceSource(quotes, "tbill-b")] },
      { instrument: "GOLD-BAR-77", quantity: "3.3", price_sources: [priceSource(quotes, "gold")] },
    ],
    liabilities_micro_usd: 5 * USD,
    supply: { reported_supply_micro_units: 1000 * USD, onchain: supplySource(token) },
    supporting_sources: [
      { kind: "custodian", url: `${quotes.url}/custody`, pointer: "/usd", credential: CUSTODY_TOKEN, label: "custodian statement" },
      { kind: "third_party_attestation", document_b64: Buffer.from("auditor letter 2026").toString("base64") },
    ],
    tolerance_bps: 50,
    max_age_secs: 3600,
    ...overrides,
  };
}

function setQuotes() {
  quotes.set("tbill-a", "99.87");
  quotes.set("tbill-b", 99.9);
  quotes.set("gold", "2400.123456789");
  quotes.set("custody", "250000");
}

const calculate = (w: NavWorld, body: unknown, auth = w.auth) => w.h.json("POST", "/v1/nav/calculate", { ...auth, body });

/** Recovered with viem as a reader would, compared with the published signer; returns the decoded payload. */
async function verified(w: NavWorld, record: { receipt: string; signature: string; signer: string; payload: unknown }) {
  const recovered = await recoverMessageAddress({ message: record.receipt, signature: record.signature as Hex });
  const pub = await w.h.json("GET", "/v1/receipts/pubkey");
  expect(recovered).toBe(pub.body.address);
  expect(record.signer).toBe(pub.body.address);
  const payload = JSON.parse(Buffer.from(record.receipt, "base64url").toString("utf8"));
  expect(payload).toEqual(record.payload);
  const check = await w.h.json("POST", "/v1/receipts/verify", { body: { receipt: record.receipt, signature: record.signature } });
  expect(check.body.valid).toBe(true);
  return payload;
}

/** Nothing of the sealed book (names, quantities, prices, the credential) in a text served. */
function expectNoBook(text: string) {
  for (const secret of ["TBILL-2026-XYZ", "GOLD-BAR-77", "1234.567", "99.87", "2400.123456789", CUSTODY_TOKEN, "250000"]) expect(text).not.toContain(secret);
}

describe("calculating", () => {
  test("VERIFIED: figures recomputed with BigInt, every field of §2.5, signed, the book sealed and committed", async () => {
    setQuotes();
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    const before = w.h.ctx.ledger.balance(w.accountId).balance_micro_usd;
    const r = await calculate(w, book(token));
    expect(r.status).toBe(201);
    const rec = r.body;
    expect(rec.status).toBe("VERIFIED");
    expect(rec.seq).toBe(1);
    expect(rec.nav_id).toMatch(/^nav_/);
    expect(rec.published_at).toBeNull();
    expect(rec.verify).toContain("/v1/receipts/verify");
    const p = await verified(w, rec);
    expect(Object.keys(p).sort()).toEqual(PAYLOAD_FIELDS);

    // Valued at the lower T-bill quote; one floor over the exact sum.
    const gross = expectedGross([["1234.567", "99.87"], ["3.3", "2400.123456789"]]);
    const total = gross - 5_000_000n;
    const supply = 1000n * 1_000_000n;
    expect(p).toMatchObject({
      v: 1,
      type: "nav-record",
      nav_id: rec.nav_id,
      asset_id: "fund-a",
      seq: 1,
      status: "VERIFIED",
      gross_asset_value_micro_usd: Number(gross),
      liabilities_micro_usd: 5 * USD,
      total_nav_micro_usd: Number(total),
      nav_per_unit_micro_usd: Number(floorDiv(total * 1_000_000n, supply)),
      supply_micro_units: Number(supply),
      unit_scale: 1_000_000,
      rounding: "floor",
      methodology_version: expect.any(String),
      verifier_version: expect.stringMatching(/^svc\//),
      privacy_mode: "standard",
      reasons: [],
      freshness: { age_secs: 0, max_age_secs: 3600, fresh: true },
      reconciliation: {
        supply: "MATCHED",
        reported_supply_micro_units: 1000 * USD,
        onchain_supply_micro_units: 1000 * USD,
        supply_delta_bps: 0,
        price_sources: "MATCHED",
        price_sources_compared: 3,
        tolerance_bps: 50,
      },
    });
    expect(p.valuation_timestamp).toBe(p.calculation_timestamp);
    expect(Date.parse(p.expires_at) - Date.parse(p.valuation_timestamp)).toBe(3600_000);

    // Evidence: every source cited with the sha256 of the exact bytes it answered.
    const refs = p.evidence_references as { source_kind: string; source_ref: string; content_sha256: string }[];
    expect(refs.map((x) => x.source_kind)).toEqual(["price", "price", "price", "erc20_supply", "custodian", "third_party_attestation"]);
    expect(refs[0]).toMatchObject({ source_ref: `${quotes.url}/tbill-a`, content_sha256: sha256(quotes.body("tbill-a")) });
    expect(refs[1]!.content_sha256).toBe(sha256(quotes.body("tbill-b")));
    expect(refs[3]!.source_ref).toBe(`erc20:devnet:${token.toLowerCase()}`);
    expect(refs[5]!.content_sha256).toBe(sha256(Buffer.from("auditor letter 2026")));

    // The commitment: sha256(salt ‖ canonical JSON of the book), with the salt returned once.
    const committed = { v: 1, holdings: [{ instrument: "TBILL-2026-XYZ", quantity: "1234.567" }, { instrument: "GOLD-BAR-77", quantity: "3.3" }], liabilities_micro_usd: 5 * USD, reported_supply_micro_units: 1000 * USD };
    expect(p.book_commitment).toBe(sha256(Buffer.concat([Buffer.from(rec.book_salt_hex, "hex"), Buffer.from(canonicalJson(committed))])));

    // Metered: the price, with a usage receipt.
    expect(rec.charge).toEqual({ cost_micro_usd: CALC_PRICE, receipt_id: expect.any(String) });
    expect(w.h.ctx.ledger.balance(w.accountId).balance_micro_usd).toBe(before - CALC_PRICE);
    const usage = w.h.ctx.db.query<Record<string, unknown>, [string]>("SELECT * FROM receipts WHERE id = ?").get(rec.charge.receipt_id)!;
    expect(usage.account_id).toBe(w.accountId);
    const stated = Buffer.from(String(usage.receipt), "base64url").toString("utf8");
    expect(stated).toContain(rec.nav_id);
    expect(stated).toContain(p.book_commitment);
    expectNoBook(stated);

    // The owner reads it back (unpublished), and nothing of the book is in any answer.
    const own = await w.h.json("GET", `/v1/nav/records/${rec.nav_id}`, w.auth);
    expect(own.status).toBe(200);
    expect(Object.keys(own.body).sort()).toEqual(RECORD_FIELDS);
    expect(own.body.receipt).toBe(rec.receipt);
    expectNoBook(JSON.stringify(rec).replace(rec.book_salt_hex, ""));
    expectNoBook(JSON.stringify(own.body));
    const row = w.h.ctx.db.query<{ book_sealed: string }, []>("SELECT book_sealed FROM nav_records").get()!;
    expectNoBook(row.book_sealed);
    expect(JSON.stringify(own.body)).not.toContain(row.book_sealed);
  });

  test("DISCREPANCY: reported supply differs from the chain's by more than tolerance_bps", async () => {
    setQuotes();
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    // 1,006 reported against 1,000 on chain: 60 bps, over 50.
    const r = await calculate(w, book(token, { supply: { reported_supply_micro_units: 1006 * USD, onchain: supplySource(token) } }));
    expect(r.status).toBe(201);
    const p = await verified(w, r.body);
    expect(p.status).toBe("DISCREPANCY");
    expect(p.reconciliation).toMatchObject({ supply: "MISMATCH", reported_supply_micro_units: 1006 * USD, onchain_supply_micro_units: 1000 * USD, supply_delta_bps: 60, price_sources: "MATCHED" });
    expect(p.reasons).toEqual([expect.stringContaining("differs from the on-chain supply by 60 bps")]);
    // Figures are stated, divided by the larger supply.
    const total = expectedGross([["1234.567", "99.87"], ["3.3", "2400.123456789"]]) - 5_000_000n;
    expect(p.supply_micro_units).toBe(1006 * USD);
    expect(p.nav_per_unit_micro_usd).toBe(Number(floorDiv(total * 1_000_000n, 1006n * 1_000_000n)));

    // Within tolerance (1,005: exactly 50 bps) it matches; a gap is rounded up, never under-shown.
    const ok = await calculate(w, book(token, { supply: { reported_supply_micro_units: 1005 * USD, onchain: supplySource(token) } }));
    expect(ok.body.payload.reconciliation).toMatchObject({ supply: "MATCHED", supply_delta_bps: 50 });
    const over = await calculate(w, book(token, { supply: { reported_supply_micro_units: 1005 * USD + 1, onchain: supplySource(token) } }));
    expect(over.body.payload.reconciliation).toMatchObject({ supply: "MISMATCH", supply_delta_bps: 51 });
  });

  test("DISCREPANCY: price sources of a position disagree; the reason names the position's index, never the instrument or a price", async () => {
    setQuotes();
    quotes.set("tbill-b", "101.5");
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    const r = await calculate(w, book(token));
    const p = await verified(w, r.body);
    expect(p.status).toBe("DISCREPANCY");
    expect(p.reconciliation).toMatchObject({ supply: "MATCHED", price_sources: "MISMATCH", price_sources_compared: 3 });
    // (101.5 − 99.87) / 99.87 = 163.2 bps → 164
    expect(p.reasons).toEqual(["holdings[0]: price sources differ by 164 bps, over the tolerance of 50 bps"]);
    // Valued at the lowest quote.
    expect(p.gross_asset_value_micro_usd).toBe(Number(expectedGross([["1234.567", "99.87"], ["3.3", "2400.123456789"]])));
    expectNoBook(JSON.stringify(r.body).replace(r.body.book_salt_hex, ""));
  });

  test("UNAVAILABLE: a source down yields no figures at all, charged the same; a contract that is no ERC-20 too", async () => {
    setQuotes();
    quotes.fail("gold", 503);
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    const r = await calculate(w, book(token));
    expect(r.status).toBe(201);
    const p = await verified(w, r.body);
    expect(p.status).toBe("UNAVAILABLE");
    for (const f of ["gross_asset_value_micro_usd", "liabilities_micro_usd", "total_nav_micro_usd", "nav_per_unit_micro_usd", "supply_micro_units"]) expect(p[f]).toBeNull();
    expect(p.reconciliation).toMatchObject({ reported_supply_micro_units: null, onchain_supply_micro_units: null, supply_delta_bps: null, price_sources: "UNAVAILABLE" });
    expect(p.reasons).toEqual([`holdings[1].price_sources[0] (price ${quotes.url}/gold) is unavailable: the source answered HTTP 503`]);
    expect(r.body.charge.cost_micro_usd).toBe(CALC_PRICE);

    // The chain's answer is required too: an address with no contract is no supply.
    setQuotes();
    const noContract = chain.accounts[5]!;
    const r2 = await calculate(w, book(token, { asset_id: "fund-b", supply: { reported_supply_micro_units: 1000 * USD, onchain: supplySource(noContract) } }));
    expect(r2.body.status).toBe("UNAVAILABLE");
    expect(r2.body.payload.reconciliation.supply).toBe("UNAVAILABLE");
    expect(r2.body.payload.total_nav_micro_usd).toBeNull();
    expect(r2.body.payload.reasons[0]).toContain("supply.onchain (erc20_supply");

    // A custodian that refuses the credential is unavailable as well.
    quotes.fail("custody", 401);
    const r3 = await calculate(w, book(token, { asset_id: "fund-c" }));
    expect(r3.body.status).toBe("UNAVAILABLE");
    expect(r3.body.payload.reasons).toEqual([expect.stringContaining("supporting_sources[0] (custodian")]);
  });

  test("STALE: a valuation older than max_age_secs at calculation", async () => {
    setQuotes();
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    const asOf = new Date(w.h.clock.now() - 7200_000).toISOString();
    const r = await calculate(w, book(token, { valuation_timestamp: asOf }));
    expect(r.body.status).toBe("STALE");
    expect(r.body.payload.freshness).toEqual({ age_secs: 7200, max_age_secs: 3600, fresh: false });
    expect(r.body.payload.gross_asset_value_micro_usd).not.toBeNull();
  });
});

describe("refreshing: versions, never overwritten", () => {
  test("VERIFIED, then STALE after the clock passes freshness, then newly observed supply, then a revaluation; history grows", async () => {
    setQuotes();
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    const first = (await calculate(w, book(token))).body;
    expect(first.status).toBe("VERIFIED");
    const refresh = (body: unknown = {}) => w!.h.json("POST", "/v1/nav/fund-a/refresh", { ...w!.auth, body });

    // Within freshness: a restatement keeps VERIFIED, figures carried, a new version.
    w.h.clock.advance(600_000);
    const fresh = await refresh();
    expect(fresh.status).toBe(201);
    expect(fresh.body).toMatchObject({ seq: 2, status: "VERIFIED" });
    expect(fresh.body.payload.freshness).toEqual({ age_secs: 600, max_age_secs: 3600, fresh: true });
    expect(fresh.body.charge.cost_micro_usd).toBe(0);

    // Past freshness: STALE, same figures, same valuation time and methodology, a new signature.
    w.h.clock.advance(3600_000);
    const stale = await refresh();
    expect(stale.body).toMatchObject({ seq: 3, status: "STALE" });
    const p = await verified(w, stale.body);
    for (const f of ["gross_asset_value_micro_usd", "total_nav_micro_usd", "nav_per_unit_micro_usd", "supply_micro_units", "valuation_timestamp", "expires_at", "methodology_version", "book_commitment"]) {
      expect(p[f]).toEqual(first.payload[f]);
    }
    expect(p.freshness).toEqual({ age_secs: 4200, max_age_secs: 3600, fresh: false });
    expect(p.reasons).toEqual([expect.stringContaining("older than max_age_secs (3600)")]);
    expect(p.calculation_timestamp).not.toBe(first.payload.calculation_timestamp);

    // Newly observed supply: 100 more tokens on chain since; a revaluation uses it.
    await chain.mint(token, holder, 100n * 1_000_000n);
    const observed = await refresh();
    expect(observed.body.status).toBe("DISCREPANCY"); // supply mismatch wins over STALE; both reasons listed
    expect(observed.body.payload.reconciliation).toMatchObject({ supply: "MISMATCH", onchain_supply_micro_units: 1100 * USD, supply_delta_bps: 910 });
    expect(observed.body.payload.reasons).toHaveLength(2);
    expect(observed.body.payload.supply_micro_units).toBe(first.payload.supply_micro_units);

    const revalued = await refresh({ revalue: true });
    expect(revalued.body).toMatchObject({ seq: 5, status: "DISCREPANCY" });
    expect(revalued.body.charge.cost_micro_usd).toBe(CALC_PRICE);
    const rp = revalued.body.payload;
    expect(rp.valuation_timestamp).toBe(rp.calculation_timestamp);
    expect(rp.freshness.fresh).toBe(true);
    expect(rp.book_commitment).toBe(first.payload.book_commitment);
    const total = expectedGross([["1234.567", "99.87"], ["3.3", "2400.123456789"]]) - 5_000_000n;
    expect(rp.nav_per_unit_micro_usd).toBe(Number(floorDiv(total * 1_000_000n, 1100n * 1_000_000n)));

    // Every version kept as signed: the owner's history, newest first; version 1 unchanged.
    const hist = await w.h.json("GET", "/v1/nav/records?asset_id=fund-a", w.auth);
    expect(hist.status).toBe(200);
    expect(hist.body.asset_id).toBe("fund-a");
    expect(typeof hist.body.note).toBe("string");
    expect(hist.body.records.map((x: { seq: number }) => x.seq)).toEqual([5, 4, 3, 2, 1]);
    expect(hist.body.records[4].receipt).toBe(first.receipt);
    expect(new Set(hist.body.records.map((x: { nav_id: string }) => x.nav_id)).size).toBe(5);
    const limited = await w.h.json("GET", "/v1/nav/records?asset_id=fund-a&limit=2", w.auth);
    expect(limited.body.records.map((x: { seq: number }) => x.seq)).toEqual([5, 4]);
  });

  test("an UNAVAILABLE latest version has nothing to restate (409); a revaluation values the sealed book again", async () => {
    setQuotes();
    quotes.fail("tbill-b");
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    expect((await calculate(w, book(token))).body.status).toBe("UNAVAILABLE");
    const r = await w.h.json("POST", "/v1/nav/fund-a/refresh", { ...w.auth, body: {} });
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe("nothing_to_restate");
    setQuotes();
    const again = await w.h.json("POST", "/v1/nav/fund-a/refresh", { ...w.auth, body: { revalue: true } });
    expect(again.body).toMatchObject({ seq: 2, status: "VERIFIED" });
  });
});

describe("publication and the public routes", () => {
  test("404 alike for unknown, never calculated and unpublished; published versions only; idempotent publish", async () => {
    setQuotes();
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    const unknown = await w.h.json("GET", "/v1/nav/no-such-asset");
    expect(unknown.status).toBe(404);
    const v1 = (await calculate(w, book(token))).body;
    const unpublished = await w.h.json("GET", "/v1/nav/fund-a");
    expect(unpublished.status).toBe(404);
    expect(unpublished.body).toEqual(unknown.body);
    for (const path of ["/v1/nav/fund-a/history", "/v1/nav/fund-a/evidence", `/v1/nav/fund-a?nav_id=${v1.nav_id}`]) {
      const r = await w.h.json("GET", path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual(unknown.body);
    }

    const pub = await w.h.json("POST", "/v1/nav/fund-a/publish", w.auth); // no body: the latest version
    expect(pub.status).toBe(200);
    expect(pub.body.published_at).not.toBeNull();
    w.h.clock.advance(1000);
    const again = await w.h.json("POST", "/v1/nav/fund-a/publish", { ...w.auth, body: { nav_id: v1.nav_id } });
    expect(again.body.published_at).toBe(pub.body.published_at);

    // A second, unpublished version: the public still sees version 1 only.
    const v2 = (await w.h.json("POST", "/v1/nav/fund-a/refresh", w.auth)).body; // no body: a restatement
    const seen = await w.h.json("GET", "/v1/nav/fund-a");
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ nav_id: v1.nav_id, seq: 1, receipt: v1.receipt });
    await verified(w, seen.body);
    expect((await w.h.json("GET", `/v1/nav/fund-a?nav_id=${v2.nav_id}`)).status).toBe(404);
    const hist = await w.h.json("GET", "/v1/nav/fund-a/history");
    expect(hist.body).toMatchObject({ asset_id: "fund-a", note: expect.any(String) });
    expect(hist.body.records.map((x: { seq: number }) => x.seq)).toEqual([1]);
    expect((await w.h.json("GET", "/v1/nav/fund-a/history?limit=0")).status).toBe(400);

    await w.h.json("POST", "/v1/nav/fund-a/publish", { ...w.auth, body: { nav_id: v2.nav_id } });
    expect((await w.h.json("GET", "/v1/nav/fund-a")).body.seq).toBe(2);
    expect((await w.h.json("GET", `/v1/nav/fund-a?nav_id=${v1.nav_id}`)).body.seq).toBe(1);
    expect((await w.h.json("GET", "/v1/nav/fund-a/history?limit=500")).body.records.map((x: { seq: number }) => x.seq)).toEqual([2, 1]);

    // Evidence: references only (kind, ref, label, time, sha256) — never a price, quantity or value.
    const ev = await w.h.json("GET", "/v1/nav/fund-a/evidence");
    expect(ev.status).toBe(200);
    expect(ev.body).toMatchObject({ asset_id: "fund-a", nav_id: v2.nav_id, seq: 2, book_commitment: v1.payload.book_commitment });
    expect(ev.body.references[0]).toEqual({ source_kind: "price", source_ref: `${quotes.url}/tbill-a`, label: "tbill desk A", retrieved_at: expect.any(String), content_sha256: sha256(quotes.body("tbill-a")) });
    expect(ev.body.references.map((x: { label: string | null }) => x.label)).toContain("custodian statement");
    expectNoBook(JSON.stringify(ev.body));
    expect(JSON.stringify(ev.body)).not.toContain(String(v1.payload.gross_asset_value_micro_usd));
    expectNoBook(JSON.stringify(hist.body));
    expectNoBook(JSON.stringify(seen.body));
  });

  test("another tenant's records answer 404 like unknown ones; a published asset id is one account's", async () => {
    setQuotes();
    const token = await tokenWithSupply(1000n);
    w = navWorld(chain, token);
    const mine = (await calculate(w, book(token))).body;
    const other = tenant(w.h);
    const unknown = await w.h.json("GET", "/v1/nav/records/nav_doesnotexist", other.auth);
    expect(unknown.status).toBe(404);
    const theirs = await w.h.json("GET", `/v1/nav/records/${mine.nav_id}`, other.auth);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    for (const [method, path, body] of [
      ["POST", "/v1/nav/fund-a/refresh", {}],
      ["POST", "/v1/nav/fund-a/publish", {}],
      ["POST", "/v1/nav/fund-a/publish", { nav_id: mine.nav_id }],
      ["GET", "/v1/nav/records?asset_id=fund-a", undefined],
    ] as const) {
      const r = await w.h.json(method, path, { ...other.auth, ...(body ? { body } : {}) });
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe("not_found");
    }

    // Both may calculate "fund-a" privately; the first to publish holds the public id.
    const theirsCalc = await calculate(w, book(token), other.auth);
    expect(theirsCalc.body.seq).toBe(1);
    expect((await w.h.json("POST", "/v1/nav/fund-a/publish", { ...w.auth, body: {} })).status).toBe(200);
    const taken = await w.h.json("POST", "/v1/nav/fund-a/publish", { ...other.auth, body: {} });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ type: "asset_id_taken", param: "asset_id" });
    expect((await w.h.json("GET", "/v1/nav/fund-a")).body.nav_id).toBe(mine.nav_id);
  });
});

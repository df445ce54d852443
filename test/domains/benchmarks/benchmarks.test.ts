/**
 * /v1/benchmarks through HTTP: the methodology's figures recomputed here with BigInt and floor
 * division, the minimum cohort size (no peer figures below it, the count withheld too), one
 * account counted once, banded counts, signed versioned results (recovered with viem), the
 * metered creation and its receipt, retention (none, and expiry by the clock and the job), the
 * 409 on refresh after destruction, the 501 confidential tier, tenancy 404 and bad input.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type Hex, recoverMessageAddress } from "viem";
import { benchmarksModule } from "../../../src/domains/benchmarks/module.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const USD = 1_000_000;
const PRICE = 2_500;
const DAY_MS = 86_400_000;
const PERIOD = "2026-Q3";

function harness(min = 5): Harness {
  return makeHarness({
    config: (c) => {
      c.benchmarks.price_micro_usd = PRICE;
      c.benchmarks.min_cohort_size = min;
    },
  });
}

function member(credit = 10 * USD) {
  const { account, session } = accountWithSession(h.ctx);
  if (credit > 0) h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id);
  return { accountId: account.id, auth: bearer(key.token), session: bearer(session.token) };
}

type Member = ReturnType<typeof member>;

const submit = (m: Member, body: Record<string, unknown>) => h.json("POST", "/v1/benchmarks/portfolio", { headers: m.auth, body });

/** An equity-led portfolio of about 2m USD (band 1m_10m) with the stated period return. */
const equityLed = (returnBps: number, extra: Record<string, unknown> = {}) => ({
  period: PERIOD,
  holdings: [
    { asset_class: "equity", value_micro_usd: 1_500_000 * USD },
    { asset_class: "cash", value_micro_usd: 500_000 * USD },
  ],
  period_return_bps: returnBps,
  ...extra,
});

async function created(m: Member, body: Record<string, unknown>) {
  const r = await submit(m, body);
  if (r.status !== 201) throw new Error(`benchmark failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const floorDiv = (a: bigint, b: bigint) => (a % b !== 0n && a < 0n ? a / b - 1n : a / b);
/** Nearest rank, as docs/benchmarks.md states it: the value at 1-based rank ceil(p·n/100). */
const rank = (sorted: number[], p: number) => sorted[Math.ceil((p * sorted.length) / 100) - 1];

async function signedPayload(result: { statement: string; signature: string; signer: string }) {
  const recovered = await recoverMessageAddress({ message: result.statement, signature: result.signature as Hex });
  expect(recovered.toLowerCase()).toBe(result.signer.toLowerCase());
  expect(recovered.toLowerCase()).toBe(h.ctx.signer.address.toLowerCase());
  return JSON.parse(Buffer.from(result.statement, "base64url").toString("utf8"));
}

describe("the methodology's own figures", () => {
  test("weights, bands and the value-weighted return, recomputed with integer math; the result is a signed statement with its methodology", async () => {
    h = harness();
    const m = member();
    const holdings = [
      { asset_class: "equity", value_micro_usd: 3_000_000_000_000, return_bps: 1_234 },
      { asset_class: "fixed_income", value_micro_usd: 1_333_333_333_333, return_bps: -321 },
      { asset_class: "cash", value_micro_usd: 111_111_111_111, return_bps: 5 },
      { asset_class: "equity", value_micro_usd: 7, return_bps: -9_999 },
    ];
    const body = await created(m, { period: PERIOD, holdings, label: "main book" });
    const total = holdings.reduce((s, x) => s + BigInt(x.value_micro_usd), 0n);
    const weighted = holdings.reduce((s, x) => s + BigInt(x.value_micro_usd) * BigInt(x.return_bps), 0n);
    const weight = (cls: string) => Number(floorDiv(holdings.filter((x) => x.asset_class === cls).reduce((s, x) => s + BigInt(x.value_micro_usd), 0n) * 10_000n, total));
    expect(body.result.portfolio).toEqual({
      return_bps: Number(floorDiv(weighted, total)),
      return_source: "holdings",
      weights_bps: { equity: weight("equity"), fixed_income: weight("fixed_income"), cash: weight("cash") },
      holdings_count: 4,
    });
    expect(body).toMatchObject({ period: PERIOD, mix_band: "equity_led", size_band: "1m_10m", cohort: `${PERIOD}/equity_led/1m_10m`, methodology_version: "portfolio-return/1", label: "main book" });
    expect(body.result.seq).toBe(1);
    const payload = await signedPayload(body.result);
    expect(payload).toMatchObject({ v: 1, type: "portfolio-benchmark", benchmark_id: body.id, account_id: m.accountId, seq: 1, methodology_version: "portfolio-return/1", cohort: body.cohort });
    expect(payload.portfolio).toEqual(body.result.portfolio);
    expect(payload.peers).toEqual(body.result.peers);
  });

  test("a negative weighted return floors toward minus infinity; weights-only portfolios disclose no size; no class at half is diversified", async () => {
    h = harness();
    const m = member();
    const holdings = [
      { asset_class: "crypto", weight_bps: 3_333, return_bps: -7 },
      { asset_class: "real_estate", weight_bps: 3_333, return_bps: -1 },
      { asset_class: "commodities", weight_bps: 3_334, return_bps: 0 },
    ];
    const body = await created(m, { period: "2026", holdings });
    const weighted = holdings.reduce((s, x) => s + BigInt(x.weight_bps) * BigInt(x.return_bps), 0n);
    expect(weighted % 10_000n).not.toBe(0n);
    expect(body.result.portfolio.return_bps).toBe(Number(floorDiv(weighted, 10_000n)));
    expect(body.result.portfolio.return_bps).toBe(-3);
    expect(body).toMatchObject({ size_band: "undisclosed", mix_band: "diversified" });
  });
});

describe("peer figures and the minimum cohort size", () => {
  test("below the minimum nothing is released, not even the count; at the minimum the quartiles, rank and excess match the test's own integer math", async () => {
    h = harness(5);
    const subject = member();
    const mine = await created(subject, equityLed(800, { retention: "30d" }));
    expect(mine.result.peers).toEqual({
      released: false,
      reason: expect.stringContaining("fewer than 5"),
      cohort_size: null,
      min_cohort_size: 5,
      p25_return_bps: null,
      median_return_bps: null,
      p75_return_bps: null,
      excess_return_bps: null,
      percentile_rank: null,
    });

    const returns = [-250, 1_200, 300, 950];
    const peers = [];
    for (const r of returns) {
      const p = member();
      peers.push(p);
      await created(p, equityLed(r));
    }
    // One account counts once, by its latest benchmark: this replaces peer 0's -250.
    await created(peers[0]!, equityLed(-400));
    // Another band (size 100k_1m) and another period are other cohorts.
    await created(member(), { ...equityLed(5), holdings: [{ asset_class: "equity", value_micro_usd: 200_000 * USD }] });
    await created(member(), equityLed(7, { period: "2026-Q2" }));
    // The subject's own later benchmark is never its peer.
    const still = await h.json("POST", `/v1/benchmarks/${mine.id}/refresh`, { headers: subject.auth });
    expect(still.status).toBe(200);
    expect(still.body.result.peers.released).toBe(false);

    const fifth = member();
    await created(fifth, equityLed(610));
    const refreshed = await h.json("POST", `/v1/benchmarks/${mine.id}/refresh`, { headers: subject.auth });
    expect(refreshed.status).toBe(200);
    const cohort = [-400, 1_200, 300, 950, 610].sort((a, b) => a - b);
    const median = rank(cohort, 50)!;
    expect(refreshed.body.result.seq).toBe(3);
    expect(refreshed.body.result.receipt_id).toBeNull();
    expect(refreshed.body.result.peers).toEqual({
      released: true,
      reason: null,
      cohort_size: 5,
      min_cohort_size: 5,
      p25_return_bps: rank(cohort, 25),
      median_return_bps: median,
      p75_return_bps: rank(cohort, 75),
      excess_return_bps: 800 - median,
      percentile_rank: Math.floor((100 * cohort.filter((r) => r < 800).length) / cohort.length),
    });
    expect(refreshed.body.result.peers).toMatchObject({ p25_return_bps: 300, median_return_bps: 610, p75_return_bps: 950, excess_return_bps: 190, percentile_rank: 60 });
    const payload = await signedPayload(refreshed.body.result);
    expect(payload.peers).toEqual(refreshed.body.result.peers);

    const history = await h.json("GET", `/v1/benchmarks/${mine.id}/history`, { headers: subject.auth });
    expect(history.status).toBe(200);
    expect(history.body.benchmark_id).toBe(mine.id);
    expect(history.body.versions.map((v: { seq: number }) => v.seq)).toEqual([3, 2, 1]);
    expect(history.body.versions[2].peers.released).toBe(false);
    expect(history.body.versions[2].receipt_id).toBe(mine.result.receipt_id);
    const one = await h.json("GET", `/v1/benchmarks/${mine.id}/history?limit=1`, { headers: subject.auth });
    expect(one.body.versions.map((v: { seq: number }) => v.seq)).toEqual([3]);

    const got = await h.json("GET", `/v1/benchmarks/${mine.id}`, { headers: subject.auth });
    expect(got.status).toBe(200);
    expect(got.body.result).toEqual(refreshed.body.result);

    // A new member of the cohort sees the subject among its peers, at creation.
    const late = await created(member(), equityLed(0));
    expect(late.result.peers).toMatchObject({ released: true, cohort_size: 6 });
  });

  test("cohort counts: distinct accounts per band, \"<N\" below the minimum, filtered by period", async () => {
    h = harness(3);
    const a = member();
    const b = member();
    const c = member();
    await created(a, equityLed(1));
    await created(a, equityLed(2));
    await created(b, equityLed(3));
    const below = await h.json("GET", "/v1/benchmarks/cohorts", { headers: a.auth });
    expect(below.status).toBe(200);
    expect(below.body).toEqual({
      cohorts: [{ cohort: `${PERIOD}/equity_led/1m_10m`, period: PERIOD, mix_band: "equity_led", size_band: "1m_10m", accounts: null, accounts_label: "<3" }],
      min_cohort_size: 3,
      methodology_version: "portfolio-return/1",
    });
    await created(c, equityLed(4));
    await created(c, { ...equityLed(5), period: "2025-12" });
    const all = await h.json("GET", "/v1/benchmarks/cohorts", { headers: a.auth });
    expect(all.body.cohorts.map((x: { cohort: string; accounts: number | null; accounts_label: string }) => [x.cohort, x.accounts, x.accounts_label])).toEqual([
      [`${PERIOD}/equity_led/1m_10m`, 3, "3"],
      ["2025-12/equity_led/1m_10m", null, "<3"],
    ]);
    const one = await h.json("GET", "/v1/benchmarks/cohorts?period=2025-12", { headers: a.auth });
    expect(one.body.cohorts.map((x: { cohort: string }) => x.cohort)).toEqual(["2025-12/equity_led/1m_10m"]);
    const bad = await h.json("GET", "/v1/benchmarks/cohorts?period=Q3", { headers: a.auth });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("query.period");
  });
});

describe("metering", () => {
  test("creation is charged the configured price with a signed receipt of kind benchmark; without credit it is 402 and nothing is stored", async () => {
    h = harness();
    const m = member(USD);
    const body = await created(m, equityLed(10));
    expect(h.ctx.ledger.balance(m.accountId).balance_micro_usd).toBe(USD - PRICE);
    const receipt = await h.json("GET", `/v1/receipts/${body.result.receipt_id}`, { headers: m.session });
    expect(receipt.status).toBe(200);
    expect(receipt.body).toMatchObject({ kind: "benchmark", status: "peers_withheld", cost_micro_usd: PRICE });
    expect(receipt.body.payload.resource).toBe(body.id);
    // Refreshes are free.
    expect((await h.json("POST", `/v1/benchmarks/${body.id}/refresh`, { headers: m.auth })).status).toBe(409);
    expect(h.ctx.ledger.balance(m.accountId).balance_micro_usd).toBe(USD - PRICE);

    const broke = member(0);
    const r = await submit(broke, equityLed(10));
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    const cohorts = await h.json("GET", "/v1/benchmarks/cohorts", { headers: m.auth });
    expect(cohorts.body.cohorts[0].accounts_label).toBe("<5");
    expect(h.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM benchmarks WHERE account_id = ?").get(broke.accountId)!.n).toBe(0);
  });

  test("privacy_tier confidential answers 501 not_implemented before any charge", async () => {
    h = harness();
    const m = member(USD);
    const r = await submit(m, equityLed(10, { privacy_tier: "confidential" }));
    expect(r.status).toBe(501);
    expect(r.body.error.type).toBe("not_implemented");
    expect(h.ctx.ledger.balance(m.accountId).balance_micro_usd).toBe(USD);
    const zero = await submit(m, equityLed(10, { privacy_tier: "zero_retention" }));
    expect(zero.status).toBe(201);
    expect(zero.body).toMatchObject({ privacy_tier: "zero_retention", retention: "none" });
  });
});

describe("retention of the sealed holdings", () => {
  test('retention "none" (the default): never stored, refresh answers 409 holdings_destroyed', async () => {
    h = harness();
    const m = member();
    const body = await created(m, equityLed(10));
    expect(body.retention).toBe("none");
    expect(body.holdings).toEqual({ state: "destroyed", count: 2, expires_at: null, destroyed_at: body.created_at });
    expect(h.ctx.db.query<{ s: string | null }, [string]>("SELECT holdings_sealed AS s FROM benchmarks WHERE id = ?").get(body.id)!.s).toBeNull();
    const r = await h.json("POST", `/v1/benchmarks/${body.id}/refresh`, { headers: m.auth });
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe("holdings_destroyed");
    const history = await h.json("GET", `/v1/benchmarks/${body.id}/history`, { headers: m.auth });
    expect(history.body.versions.length).toBe(1);
  });

  test("holdings kept for 1d are sealed, refreshable, then destroyed by the job once the clock passes expiry; refresh then answers 409", async () => {
    h = harness();
    benchmarksModule.jobs!(h.ctx);
    const m = member();
    const body = await created(m, equityLed(10, { retention: "1d" }));
    expect(body.holdings).toMatchObject({ state: "sealed", count: 2, destroyed_at: null, expires_at: new Date(Date.parse(body.created_at) + DAY_MS).toISOString() });
    const sealed = h.ctx.db.query<{ s: string | null }, [string]>("SELECT holdings_sealed AS s FROM benchmarks WHERE id = ?").get(body.id)!.s;
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain("equity");
    expect((await h.json("POST", `/v1/benchmarks/${body.id}/refresh`, { headers: m.auth })).status).toBe(200);

    h.clock.advance(DAY_MS + 1_000);
    await h.ctx.scheduler.runDue();
    const row = h.ctx.db.query<{ s: string | null; at: number | null }, [string]>("SELECT holdings_sealed AS s, holdings_destroyed_at AS at FROM benchmarks WHERE id = ?").get(body.id)!;
    expect(row.s).toBeNull();
    expect(row.at).toBe(h.clock.now());
    const got = await h.json("GET", `/v1/benchmarks/${body.id}`, { headers: m.auth });
    expect(got.body.holdings).toMatchObject({ state: "destroyed", expires_at: null, destroyed_at: new Date(row.at!).toISOString() });
    const r = await h.json("POST", `/v1/benchmarks/${body.id}/refresh`, { headers: m.auth });
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe("holdings_destroyed");
    // The results stay: they are the record.
    expect((await h.json("GET", `/v1/benchmarks/${body.id}/history`, { headers: m.auth })).body.versions.length).toBe(2);
  });

  test("holdings past expiry are destroyed at the next refresh even before the job runs", async () => {
    h = harness();
    const m = member();
    const body = await created(m, equityLed(10, { retention: "2d" }));
    h.clock.advance(2 * DAY_MS);
    const r = await h.json("POST", `/v1/benchmarks/${body.id}/refresh`, { headers: m.auth });
    expect(r.status).toBe(409);
    expect(h.ctx.db.query<{ s: string | null }, [string]>("SELECT holdings_sealed AS s FROM benchmarks WHERE id = ?").get(body.id)!.s).toBeNull();
  });
});

describe("tenancy and input", () => {
  test("another tenant's benchmark answers the same 404 as an unknown id, on every route", async () => {
    h = harness();
    const owner = member();
    const other = member();
    const body = await created(owner, equityLed(10, { retention: "7d" }));
    for (const [method, suffix] of [["GET", ""], ["GET", "/history"], ["POST", "/refresh"]] as const) {
      const theirs = await h.json(method, `/v1/benchmarks/${body.id}${suffix}`, { headers: other.auth });
      const unknown = await h.json(method, `/v1/benchmarks/bmk_unknown${suffix}`, { headers: other.auth });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
    }
    expect((await h.json("GET", `/v1/benchmarks/${body.id}`, { headers: owner.auth })).status).toBe(200);
  });

  test("bad input names the field and charges nothing", async () => {
    h = harness();
    const m = member(USD);
    const eq = { asset_class: "equity", value_micro_usd: 10 * USD };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...equityLed(1), period: "2026-Q5" }, "period"],
      [{ ...equityLed(1), period: "2099" }, "period"],
      [{ ...equityLed(1), holdings: [] }, "holdings"],
      [{ ...equityLed(1), holdings: [{ asset_class: "stamps", value_micro_usd: 1 }] }, "holdings.0.asset_class"],
      [{ ...equityLed(1), holdings: [{ asset_class: "equity", value_micro_usd: 1, weight_bps: 10_000 }] }, "holdings.0"],
      [{ ...equityLed(1), holdings: [{ asset_class: "equity" }] }, "holdings.0"],
      [{ ...equityLed(1), holdings: [eq, { asset_class: "cash", weight_bps: 5_000 }] }, "holdings.1.value_micro_usd"],
      [{ ...equityLed(1), holdings: [{ asset_class: "equity", weight_bps: 9_000 }] }, "holdings"],
      [{ ...equityLed(1), holdings: [{ asset_class: "equity", value_micro_usd: 1.5 }] }, "holdings.0.value_micro_usd"],
      [{ ...equityLed(1), holdings: [{ asset_class: "equity", value_micro_usd: "100" }] }, "holdings.0.value_micro_usd"],
      [{ period: PERIOD, holdings: [eq] }, "holdings.0.return_bps"],
      [{ ...equityLed(1), holdings: [{ ...eq, return_bps: 5 }] }, "period_return_bps"],
      [{ period: PERIOD, holdings: [{ ...eq, return_bps: -10_001 }] }, "holdings.0.return_bps"],
      [{ ...equityLed(1), retention: "forever" }, "retention"],
      [{ ...equityLed(1), retention: "366d" }, "retention"],
      [{ ...equityLed(1), retention: "30d", privacy_tier: "zero_retention" }, "retention"],
      [{ ...equityLed(1), privacy_tier: "secret" }, "privacy_tier"],
      [{ ...equityLed(1), label: "" }, "label"],
      [{ ...equityLed(1), colour: "red" }, "colour"],
    ];
    for (const [body, param] of cases) {
      const r = await submit(m, body);
      expect([r.status, r.body.error?.param, body]).toEqual([400, param, body]);
    }
    expect(h.ctx.ledger.balance(m.accountId).balance_micro_usd).toBe(USD);
    const limit = await h.json("GET", "/v1/benchmarks/bmk_x/history?limit=0", { headers: m.auth });
    expect(limit.status).toBe(400);
  });

  test("a key without the records scope is refused", async () => {
    h = harness();
    const { account } = accountWithSession(h.ctx);
    const key = apiKeyFor(h.ctx, account.id, { scopes: ["inference"] });
    const r = await h.json("POST", "/v1/benchmarks/portfolio", { headers: bearer(key.token), body: equityLed(1) });
    expect(r.status).toBe(403);
    expect(r.body.error.type).toBe("missing_scope");
  });
});

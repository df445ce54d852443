/**
 * Portfolio benchmarks' rules (docs/benchmarks.md): a portfolio's figures computed under the
 * stamped methodology, compared with the latest benchmark of each other account in its cohort,
 * peer figures released only from the minimum cohort size; holdings sealed and destroyed by
 * their retention; every result a signed, versioned statement, never overwritten.
 */
import { isoTime } from "../../core/clock.ts";
import { conflict, invalidField, notFound, notImplemented } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { meterWork } from "../../core/metered-work.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { COHORTS_CAP } from "./limits.ts";
import {
  checkHoldings,
  cohortOf,
  type Holding,
  METHODOLOGY_VERSION,
  type PeerFigures,
  peerFigures,
  periodStart,
  type PortfolioFigures,
  portfolioFigures,
} from "./methodology.ts";
import { retentionMs, withRetention } from "./retention.ts";
import { type BenchmarkRow, benchmarkById, cohortCounts, insertBenchmark, insertResult, latestResult, nextSeq, peerReturns, type ResultRow, resultsOf } from "./store.ts";

export interface BenchmarkCaller {
  accountId: string;
  keyId: string;
}

export interface BenchmarkInput {
  period: string;
  holdings: Holding[];
  period_return_bps?: number;
  retention?: string;
  privacy_tier?: "standard" | "zero_retention" | "confidential";
  label?: string;
}

/** What a result's statement decodes to. */
interface ResultPayload {
  v: 1;
  type: "portfolio-benchmark";
  benchmark_id: string;
  account_id: string;
  seq: number;
  methodology_version: string;
  period: string;
  cohort: string;
  mix_band: string;
  size_band: string;
  portfolio: Omit<PortfolioFigures, "mix_band" | "size_band">;
  peers: PeerFigures;
  receipt_id: string | null;
  computed_at: string;
}

export interface ResultView {
  seq: number;
  methodology_version: string;
  computed_at: string;
  receipt_id: string | null;
  portfolio: ResultPayload["portfolio"];
  peers: PeerFigures;
  statement: string;
  signature: string;
  signer: string;
}

export interface BenchmarkView {
  id: string;
  label: string | null;
  period: string;
  cohort: string;
  mix_band: string;
  size_band: string;
  methodology_version: string;
  privacy_tier: "standard" | "zero_retention";
  retention: string;
  holdings: { state: "sealed" | "destroyed"; count: number; expires_at: string | null; destroyed_at: string | null };
  created_at: string;
  result: ResultView;
}

/** The sealed holdings are bound to their benchmark and account: copied into another row, they do not open. */
const holdingsAad = (accountId: string, id: string) => JSON.stringify(["benchmarks", accountId, id]);

interface SealedHoldings {
  holdings: Holding[];
  period_return_bps: number | null;
}

function resultView(r: ResultRow): ResultView {
  const p = JSON.parse(Buffer.from(r.statement, "base64url").toString("utf8")) as ResultPayload;
  return {
    seq: r.seq,
    methodology_version: p.methodology_version,
    computed_at: isoTime(r.computed_at),
    receipt_id: r.receipt_id,
    portfolio: p.portfolio,
    peers: p.peers,
    statement: r.statement,
    signature: r.signature,
    signer: r.signer,
  };
}

function view(ctx: Context, b: BenchmarkRow): BenchmarkView {
  return {
    id: b.id,
    label: b.label,
    period: b.period,
    cohort: b.cohort,
    mix_band: b.mix_band,
    size_band: b.size_band,
    methodology_version: b.methodology_version,
    privacy_tier: b.privacy_tier as BenchmarkView["privacy_tier"],
    retention: b.retention,
    holdings: {
      state: b.holdings_sealed === null ? "destroyed" : "sealed",
      count: b.holdings_count,
      expires_at: b.holdings_sealed === null || b.holdings_expires_at === null ? null : isoTime(b.holdings_expires_at),
      destroyed_at: b.holdings_destroyed_at === null ? null : isoTime(b.holdings_destroyed_at),
    },
    created_at: isoTime(b.created_at),
    result: resultView(latestResult(ctx, b.id)),
  };
}

/** Signs and stores the next result of `b`; inside the caller's transaction. */
function recordResult(ctx: Context, b: BenchmarkRow, figures: PortfolioFigures, peers: PeerFigures, receiptId: string | null): void {
  const now = ctx.clock.now();
  const seq = nextSeq(ctx, b.id);
  const { mix_band, size_band, ...portfolio } = figures;
  const payload: ResultPayload = {
    v: 1,
    type: "portfolio-benchmark",
    benchmark_id: b.id,
    account_id: b.account_id,
    seq,
    methodology_version: b.methodology_version,
    period: b.period,
    cohort: b.cohort,
    mix_band,
    size_band,
    portfolio,
    peers,
    receipt_id: receiptId,
    computed_at: isoTime(now),
  };
  const signed = signStatement(ctx.signer, payload as unknown as Record<string, unknown>);
  insertResult(ctx, { benchmark_id: b.id, seq, ...signed, receipt_id: receiptId, computed_at: now });
}

const peersOf = (ctx: Context, b: Pick<BenchmarkRow, "cohort" | "methodology_version" | "account_id">, returnBps: number): PeerFigures =>
  peerFigures(returnBps, peerReturns(ctx, b.cohort, b.methodology_version, b.account_id), ctx.config.benchmarks.min_cohort_size);

/** POST /v1/benchmarks/portfolio: refused before any charge when the input is wrong or the tier is not served; one charge and one receipt otherwise. */
export async function createBenchmark(ctx: Context, caller: BenchmarkCaller, input: BenchmarkInput): Promise<BenchmarkView> {
  const tier = input.privacy_tier ?? "standard";
  if (tier === "confidential") throw notImplemented("the confidential privacy tier for portfolio benchmarks");
  const retention = input.retention ?? "none";
  const keepMs = retentionMs(retention);
  if (tier === "zero_retention" && keepMs > 0) throw invalidField("retention", 'must be "none" with privacy_tier zero_retention');
  const now = ctx.clock.now();
  if (periodStart(input.period) > now) throw invalidField("period", "has not started yet");
  const stated = input.period_return_bps ?? null;
  checkHoldings(input.holdings, stated);
  const figures = portfolioFigures(input.holdings, stated);
  const id = newId("bmk");
  const base = { cohort: cohortOf(input.period, figures), methodology_version: METHODOLOGY_VERSION, account_id: caller.accountId };
  const { result: peers, settlement } = await meterWork(
    ctx.meter,
    ctx.log,
    { accountId: caller.accountId, keyId: caller.keyId, price: ctx.config.benchmarks.price_micro_usd, kind: "benchmark", resource: id },
    async () => {
      const peers = peersOf(ctx, base, figures.return_bps);
      return {
        result: peers,
        status: peers.released ? "peers_released" : "peers_withheld",
        units: { holdings: figures.holdings_count, attestations: { benchmark: { methodology_version: METHODOLOGY_VERSION, cohort: base.cohort, retention } } },
      };
    },
  );
  const createdAt = ctx.clock.now();
  const row: BenchmarkRow = {
    id,
    ...base,
    key_id: caller.keyId,
    label: input.label ?? null,
    period: input.period,
    mix_band: figures.mix_band,
    size_band: figures.size_band,
    return_bps: figures.return_bps,
    privacy_tier: tier,
    retention,
    holdings_count: figures.holdings_count,
    holdings_sealed: keepMs === 0 ? null : ctx.sealer.seal(JSON.stringify({ holdings: input.holdings, period_return_bps: stated } satisfies SealedHoldings), holdingsAad(caller.accountId, id)),
    holdings_expires_at: keepMs === 0 ? null : createdAt + keepMs,
    holdings_destroyed_at: keepMs === 0 ? createdAt : null,
    created_at: createdAt,
  };
  ctx.tx.run(() => {
    insertBenchmark(ctx, row);
    recordResult(ctx, row, figures, peers, settlement.receipt?.id ?? null);
  });
  return view(ctx, row);
}

/** Another account's benchmark answers the same 404 as an unknown one. */
function owned(ctx: Context, accountId: string, id: string): BenchmarkRow {
  const row = benchmarkById(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("benchmark");
  return withRetention(ctx, row);
}

export const getBenchmark = (ctx: Context, accountId: string, id: string): BenchmarkView => view(ctx, owned(ctx, accountId, id));

export function benchmarkHistory(ctx: Context, accountId: string, id: string, limit: number): ResultView[] {
  const row = owned(ctx, accountId, id);
  return resultsOf(ctx, row.id, limit).map(resultView);
}

/**
 * POST /v1/benchmarks/:id/refresh: the portfolio's figures again from its sealed holdings under
 * its own methodology, against the cohort as it is now, as a new result version. 409 once the
 * holdings are destroyed, and 409 if svc no longer carries the benchmark's methodology (a result
 * is never recomputed under a newer one).
 */
export function refreshBenchmark(ctx: Context, accountId: string, id: string): BenchmarkView {
  const row = owned(ctx, accountId, id);
  if (row.holdings_sealed === null) {
    throw conflict("holdings_destroyed", `benchmark ${row.id}'s sealed holdings were destroyed (retention ${row.retention}); submit the portfolio again for a new benchmark`);
  }
  if (row.methodology_version !== METHODOLOGY_VERSION) {
    throw conflict("methodology_superseded", `benchmark ${row.id} was computed under ${row.methodology_version}, which this svc no longer computes; results are never recomputed under a newer methodology`);
  }
  const sealed = JSON.parse(ctx.sealer.openText(row.holdings_sealed, holdingsAad(row.account_id, row.id))) as SealedHoldings;
  const figures = portfolioFigures(sealed.holdings, sealed.period_return_bps);
  ctx.tx.run(() => recordResult(ctx, row, figures, peersOf(ctx, row, figures.return_bps), null));
  return view(ctx, row);
}

export interface CohortView {
  cohort: string;
  period: string;
  mix_band: string;
  size_band: string;
  accounts: number | null;
  accounts_label: string;
}

/** GET /v1/benchmarks/cohorts: distinct accounts per band; below the minimum, "<N" and no count. */
export function listCohorts(ctx: Context, period: string | null): CohortView[] {
  const min = ctx.config.benchmarks.min_cohort_size;
  return cohortCounts(ctx, METHODOLOGY_VERSION, period, COHORTS_CAP).map((c) => ({
    cohort: c.cohort,
    period: c.period,
    mix_band: c.mix_band,
    size_band: c.size_band,
    accounts: c.accounts < min ? null : c.accounts,
    accounts_label: c.accounts < min ? `<${min}` : String(c.accounts),
  }));
}

/**
 * switch_model: the account spent on chat model A, and a cheaper chat model B of the catalogue
 * passes every eval both have a completed run of at least as well as A. Adopting it sets the
 * account's model route A → B through the inference area (its requests for A are then served,
 * and billed, as B; the receipt names both).
 *
 * Cheaper means a lower input + output price per million tokens in the catalogue. Without an
 * eval both models have run there is no evidence B does the job, so no proposal is made. The
 * evidence is re-read when the proposal is adopted: eval runs made since may show a regression.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, conflict } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { type EvalRunSummary, latestEvalRuns } from "../evals/index.ts";
import { modelRoutesOf, setModelRoute } from "../inference/index.ts";
import type { ModelUsage } from "../usage/index.ts";
import type { Applied, Draft, Evidence, ProposalRow } from "./store.ts";

type Snapshot = ReturnType<Context["catalog"]["current"]>;
type SwitchEvidence = Extract<Evidence, { candidate: string }>;
type EvalEvidence = SwitchEvidence["evals"][number];
type Price = SwitchEvidence["model_price"];

const MTOK = 1_000_000;

/** A chat model's prices, when the catalogue has it as a chat model with both prices. */
function chatPrice(snapshot: Snapshot, id: string): Price | null {
  const m = snapshot.model(id);
  if (!m || m.type !== "chat" || m.input_micro_usd_per_mtok == null || m.output_micro_usd_per_mtok == null) return null;
  return { input_micro_usd_per_mtok: m.input_micro_usd_per_mtok, output_micro_usd_per_mtok: m.output_micro_usd_per_mtok };
}

const priceSum = (p: Price) => p.input_micro_usd_per_mtok + p.output_micro_usd_per_mtok;

/** A model the deployment can serve now (GET /v1/models lists it). */
const servable = (snapshot: Snapshot, id: string) => {
  const m = snapshot.model(id);
  return m !== undefined && snapshot.servingProviders(m).length > 0;
};

const side = (r: EvalRunSummary) => ({
  run_id: r.run_id,
  pass_rate: r.pass_rate,
  passed: r.passed,
  total: r.total,
  passed_threshold: r.passed_threshold,
  regression: r.regression,
  run_at: isoTime(r.created_at),
});

/**
 * The evals both models have a completed run of (the latest of each), and whether the
 * candidate regressed on any: its run is flagged a regression, or passes less than the model's.
 */
export function evalEvidence(runs: readonly EvalRunSummary[], model: string, candidate: string): { evals: EvalEvidence[]; regression: boolean } {
  const of = (m: string) => new Map(runs.filter((r) => r.model === m).map((r) => [r.eval_id, r]));
  const mine = of(model);
  const theirs = of(candidate);
  const evals: EvalEvidence[] = [];
  for (const [evalId, m] of [...mine].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const c = theirs.get(evalId);
    if (c) evals.push({ eval_id: evalId, threshold: m.threshold, model: side(m), candidate: side(c) });
  }
  const regression = evals.some((e) => e.candidate.regression || e.candidate.pass_rate < e.model.pass_rate);
  return { evals, regression };
}

/** The cost of the period's tokens at `price` (rounded up once, as settle does). */
const costAt = (u: ModelUsage, price: Price) => Math.ceil((u.input_tokens * price.input_micro_usd_per_mtok + u.output_tokens * price.output_micro_usd_per_mtok) / MTOK);

/**
 * One draft per chat model the account spent on (and has no route for yet): the cheapest
 * servable chat model that is at least as good on every shared eval, preferring one whose
 * runs show no regression (a proposal that shows one is still written, to say why it cannot
 * be adopted).
 */
export function switchDrafts(ctx: Context, accountId: string, usage: readonly ModelUsage[], runs: readonly EvalRunSummary[]): Draft[] {
  const snapshot = ctx.catalog.current();
  const routed = new Set(modelRoutesOf(ctx, accountId).map((r) => r.from));
  const drafts: Draft[] = [];
  for (const u of usage) {
    const price = chatPrice(snapshot, u.model);
    if (!price || routed.has(u.model) || u.spend_micro_usd <= 0) continue;
    const candidates: { id: string; price: Price; evals: EvalEvidence[]; regression: boolean }[] = [];
    for (const id of snapshot.models.keys()) {
      const cPrice = id === u.model ? null : chatPrice(snapshot, id);
      if (!cPrice || priceSum(cPrice) >= priceSum(price) || !servable(snapshot, id)) continue;
      const ev = evalEvidence(runs, u.model, id);
      if (!ev.evals.length || ev.evals.some((e) => e.candidate.pass_rate < e.model.pass_rate)) continue;
      candidates.push({ id, price: cPrice, ...ev });
    }
    candidates.sort((a, b) => Number(a.regression) - Number(b.regression) || priceSum(a.price) - priceSum(b.price) || (a.id < b.id ? -1 : 1));
    const best = candidates[0];
    if (!best) continue;
    const estimated = costAt(u, best.price);
    const saving = Math.max(0, u.spend_micro_usd - estimated);
    const evidence: SwitchEvidence = {
      model: u.model,
      candidate: best.id,
      calls: u.calls,
      spend_micro_usd: u.spend_micro_usd,
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      model_price: price,
      candidate_price: best.price,
      estimated_candidate_cost_micro_usd: estimated,
      estimated_saving_micro_usd: saving,
      evals: best.evals,
      regression: best.regression,
    };
    const evalsSaid = `${best.evals.length} shared eval${best.evals.length === 1 ? "" : "s"}`;
    drafts.push({
      kind: "switch_model",
      target: `model:${u.model}`,
      summary: best.regression
        ? `Serve ${u.model} requests with ${best.id}: about ${saving} micro-USD less over the period, but ${best.id}'s latest runs of the ${evalsSaid} show a regression (cannot be adopted)`
        : `Serve ${u.model} requests with ${best.id}: about ${saving} micro-USD less over the period (${u.calls} calls), passing the ${evalsSaid} at least as well`,
      evidence,
      change: { action: "route_model", from: u.model, to: best.id },
      weight: saving,
    });
  }
  return drafts;
}

const stale = (why: string) => conflict("proposal_stale", `the proposal no longer holds: ${why}; analyze again`);

/**
 * Adopts a switch_model proposal of `row.account_id`: re-reads the evidence (the catalogue and
 * the latest eval runs), refuses a regression (409 proposal_regressed) or a proposal that no
 * longer holds (409 proposal_stale), then sets the route. Inside the adopting transaction.
 */
export function adoptSwitch(ctx: Context, row: ProposalRow): Applied {
  const evidence = JSON.parse(row.evidence) as SwitchEvidence;
  const { from, to } = JSON.parse(row.change) as { from: string; to: string };
  if (evidence.regression) throw regressed(evidence.evals);
  const snapshot = ctx.catalog.current();
  const fromPrice = chatPrice(snapshot, from);
  const toPrice = chatPrice(snapshot, to);
  if (!fromPrice) throw stale(`${from} is no longer a priced chat model of the catalogue`);
  if (!toPrice || !servable(snapshot, to)) throw stale(`${to} is no longer a chat model this deployment serves`);
  if (priceSum(toPrice) >= priceSum(fromPrice)) throw stale(`${to} is no longer cheaper than ${from}`);
  const fresh = evalEvidence(latestEvalRuns(ctx, row.account_id), from, to);
  if (!fresh.evals.length) throw stale(`no eval has a completed run of both ${from} and ${to} any more`);
  if (fresh.regression) throw regressed(fresh.evals);
  const previous = modelRoutesOf(ctx, row.account_id).find((r) => r.from === from)?.to ?? null;
  setModelRoute(ctx, row.account_id, from, to);
  return { from, to, previous_to: previous };
}

function regressed(evals: EvalEvidence[]): ApiError {
  const which = evals.filter((e) => e.candidate.regression || e.candidate.pass_rate < e.model.pass_rate);
  return new ApiError(409, "proposal_regressed", "the evidence shows a regression: the candidate's latest run of an eval is flagged a regression or passes less than the current model's", {
    regressed: which.map((e) => ({ eval_id: e.eval_id, run_id: e.candidate.run_id, pass_rate: e.candidate.pass_rate, model_pass_rate: e.model.pass_rate, flagged: e.candidate.regression })),
  });
}

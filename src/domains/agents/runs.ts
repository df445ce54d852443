/**
 * Runs of hosted agents: queued as a scheduler job (so a queued run survives a restart), then
 * executed by loop.ts. Status: queued → running → succeeded | failed, or queued → cancelled
 * (the agent deleted, or gated off before the run started). The run id is also the receipts'
 * svc_run_id: every model call and tool call of the run is chained into it, so
 * POST /v1/runs/:id/proof proves the whole run.
 *
 * Input and output are sealed at rest; steps hold names, outcomes, costs and receipt ids only.
 */
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { receiptsOfRun } from "../receipts/index.ts";
import type { AgentRow } from "./store.ts";

/** Spec §8: GET /v1/agents/:id/runs lists at most 100 runs. */
export const RUNS_LISTED = 100;
export const RUN_JOB = "agents.run";

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";
export type RunTrigger = "manual" | "hook" | "mailbox";

export interface RunRow {
  id: string;
  agent_id: string;
  account_id: string;
  trigger: RunTrigger;
  message_id: string | null;
  status: RunStatus;
  input_sealed: string;
  output_sealed: string | null;
  error_type: string | null;
  error_message: string | null;
  turns: number;
  cost_micro_usd: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface StepRow {
  run_id: string;
  seq: number;
  kind: "model" | "tool";
  name: string;
  status: string;
  cost_micro_usd: number;
  receipt_id: string | null;
  duration_ms: number;
  created_at: number;
}

export const inputAad = (runId: string) => `agent_runs:${runId}:input`;
export const outputAad = (runId: string) => `agent_runs:${runId}:output`;

export const runRow = (ctx: Context, id: string): RunRow | null => ctx.db.query<RunRow, [string]>("SELECT * FROM agent_runs WHERE id = ?").get(id);

/** Inserts a queued run and its job, in the caller's transaction when there is one. */
export function queueRun(ctx: Context, agent: AgentRow, trigger: RunTrigger, input: string, messageId: string | null = null): RunRow {
  return ctx.tx.run(() => {
    const id = newId("run");
    const now = ctx.clock.now();
    ctx.db
      .query("INSERT INTO agent_runs (id, agent_id, account_id, trigger, message_id, status, input_sealed, created_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)")
      .run(id, agent.id, agent.account_id, trigger, messageId, ctx.sealer.seal(input, inputAad(id)), now);
    // Attempts: a second one only meets a run left "running" by a dead process, and fails it as interrupted.
    ctx.scheduler.schedule(RUN_JOB, { run_id: id }, { uniqueKey: `agent_run:${id}`, maxAttempts: 2 });
    return runRow(ctx, id)!;
  });
}

/** Cancels the agent's queued runs (deleted or gated off); runs already running finish. */
export function cancelQueuedRuns(ctx: Context, agentId: string, reason: string): number {
  const now = ctx.clock.now();
  const ids = ctx.db
    .query<{ id: string }, [number, string, string]>(
      "UPDATE agent_runs SET status = 'cancelled', error_type = 'cancelled', error_message = ?3, finished_at = ?1 WHERE agent_id = ?2 AND status = 'queued' RETURNING id",
    )
    .all(now, agentId, reason);
  for (const { id } of ids) ctx.scheduler.cancel(`agent_run:${id}`);
  return ids.length;
}

export interface RunSummary {
  id: string;
  agent_id: string;
  status: RunStatus;
  trigger: RunTrigger;
  message_id: string | null;
  turns: number;
  cost_micro_usd: number;
  error: { type: string; message: string } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface RunDetail extends RunSummary {
  input: string;
  output: string | null;
  steps: { index: number; kind: "model" | "tool"; name: string; status: string; cost_micro_usd: number; receipt_id: string | null; duration_ms: number; at: string }[];
  receipts: { id: string; kind: string; status: string; cost_micro_usd: number; receipt: string; signature: string; signer: string }[];
  /** Where the run's Merkle proof is asked for (the run id is the receipts' svc_run_id). */
  proof_url: string;
}

const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function runView(row: RunRow): RunSummary {
  return {
    id: row.id,
    agent_id: row.agent_id,
    status: row.status,
    trigger: row.trigger,
    message_id: row.message_id,
    turns: row.turns,
    cost_micro_usd: row.cost_micro_usd,
    error: row.error_type ? { type: row.error_type, message: row.error_message ?? "" } : null,
    created_at: isoTime(row.created_at),
    started_at: time(row.started_at),
    finished_at: time(row.finished_at),
  };
}

/** The agent's runs, newest first, at most 100. */
export function listRuns(ctx: Context, agentId: string): RunSummary[] {
  return ctx.db
    .query<RunRow, [string, number]>("SELECT * FROM agent_runs WHERE agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
    .all(agentId, RUNS_LISTED)
    .map(runView);
}

export const stepsOf = (ctx: Context, runId: string): StepRow[] => ctx.db.query<StepRow, [string]>("SELECT * FROM agent_run_steps WHERE run_id = ? ORDER BY seq").all(runId);

export function getRun(ctx: Context, agentId: string, runId: string): RunDetail {
  const row = runRow(ctx, runId);
  if (!row || row.agent_id !== agentId) throw notFound("run");
  return {
    ...runView(row),
    input: ctx.sealer.openText(row.input_sealed, inputAad(row.id)),
    output: row.output_sealed === null ? null : ctx.sealer.openText(row.output_sealed, outputAad(row.id)),
    steps: stepsOf(ctx, row.id).map((s) => ({
      index: s.seq,
      kind: s.kind,
      name: s.name,
      status: s.status,
      cost_micro_usd: s.cost_micro_usd,
      receipt_id: s.receipt_id,
      duration_ms: s.duration_ms,
      at: isoTime(s.created_at),
    })),
    receipts: receiptsOfRun(ctx, row.account_id, row.id).map((r) => ({
      id: r.id,
      kind: r.kind,
      status: r.status,
      cost_micro_usd: r.cost_micro_usd,
      receipt: r.receipt,
      signature: r.signature,
      signer: r.signer,
    })),
    proof_url: `${ctx.config.public_url}/v1/runs/${encodeURIComponent(row.id)}/proof`,
  };
}

/**
 * Sandbox sessions (spec §3, §4.3): a workspace that keeps its files between execs, on the
 * gateway or on the node that created it, until it stops — for requested (DELETE),
 * idle_timeout, max_lifetime, insufficient_credit or node_unreachable. Every stop is a
 * scheduler job or an event (never a setTimeout), commits the session's last alive-time charge
 * and sandbox_session_stopped {session_id, reason} in one transaction, aborts the execs in
 * flight, then removes the workspace. Later commands answer 409 session_stopped.
 *
 * Alive time is billed while a session lives, in periods (sandboxes.session_billing_period_secs):
 * each period is reserved ahead through the meter (kind sandbox_session, one receipt per
 * period) and settled at its end for the time that passed, when the next one is reserved. An
 * account that cannot pay for the next period is stopped with insufficient_credit, having paid
 * for every second it was alive. Execs are billed on their own (execution.ts).
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Reservation } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import { assertWithinPlanLimit } from "../billing/index.ts";
import type { SandboxBackend, WorkspaceRef } from "./backend.ts";
import { backendForNew, backendOf } from "./dispatch.ts";
import { asApiError } from "./errors.ts";
import { abandonIdempotent, completeIdempotent, replayResponse, startIdempotent } from "./idempotency.ts";
import { LIST_CAP } from "./models.ts";
import { costOfMs } from "./pricing.ts";
import type { LanguageName } from "./runner/index.ts";

export type StopReason = "requested" | "idle_timeout" | "max_lifetime" | "insufficient_credit" | "node_unreachable";

export const SESSION_IDLE_JOB = "sandboxes.session_idle";
export const SESSION_LIFETIME_JOB = "sandboxes.session_lifetime";
export const SESSION_BILL_JOB = "sandboxes.session_bill";

export interface SessionRow {
  id: string;
  account_id: string;
  key_id: string | null;
  run_id: string | null;
  language: LanguageName | null;
  node_id: string | null;
  workspace_ref: string;
  snapshot_id: string | null;
  status: "live" | "stopped";
  stop_reason: StopReason | null;
  idle_timeout_secs: number;
  max_lifetime_secs: number;
  created_at: number;
  last_active_at: number;
  stopped_at: number | null;
  billed_until: number;
  period_hold: string | null;
  exec_count: number;
  exec_cost_micro_usd: number;
  alive_cost_micro_usd: number;
}

export interface SessionView {
  id: string;
  object: "sandbox.session";
  status: "live" | "stopped";
  stop_reason: StopReason | null;
  language: LanguageName | null;
  node_id: string | null;
  snapshot_id: string | null;
  run_id: string | null;
  idle_timeout_s: number;
  max_lifetime_s: number;
  created_at: string;
  last_active_at: string;
  expires_at: string;
  stopped_at: string | null;
  alive_seconds: number;
  exec_count: number;
  exec_cost_micro_usd: number;
  alive_cost_micro_usd: number;
  cost_micro_usd: number;
}

export interface Principal {
  accountId: string;
  keyId: string | null;
}

const COLUMNS = `id, account_id, key_id, run_id, language, node_id, workspace_ref, snapshot_id, status, stop_reason, idle_timeout_secs, max_lifetime_secs,
  created_at, last_active_at, stopped_at, billed_until, period_hold, exec_count, exec_cost_micro_usd, alive_cost_micro_usd`;

export const sessionRow = (ctx: Context, id: string): SessionRow | null => ctx.db.query<SessionRow, [string]>(`SELECT ${COLUMNS} FROM sandbox_sessions WHERE id = ?`).get(id);

/** The caller's session: another tenant's, or none, is the same 404. */
export function ownedSession(ctx: Context, accountId: string, id: string): SessionRow {
  const row = sessionRow(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("sandbox session");
  return row;
}

export const workspaceOf = (row: Pick<SessionRow, "workspace_ref">): WorkspaceRef => ({ id: row.workspace_ref });

export function sessionView(ctx: Context, row: SessionRow): SessionView {
  const end = row.stopped_at ?? ctx.clock.now();
  return {
    id: row.id,
    object: "sandbox.session",
    status: row.status,
    stop_reason: row.stop_reason,
    language: row.language,
    node_id: row.node_id,
    snapshot_id: row.snapshot_id,
    run_id: row.run_id,
    idle_timeout_s: row.idle_timeout_secs,
    max_lifetime_s: row.max_lifetime_secs,
    created_at: isoTime(row.created_at),
    last_active_at: isoTime(row.last_active_at),
    expires_at: isoTime(row.created_at + row.max_lifetime_secs * 1000),
    stopped_at: row.stopped_at === null ? null : isoTime(row.stopped_at),
    alive_seconds: Math.max(0, Math.floor((end - row.created_at) / 1000)),
    exec_count: row.exec_count,
    exec_cost_micro_usd: row.exec_cost_micro_usd,
    alive_cost_micro_usd: row.alive_cost_micro_usd,
    cost_micro_usd: row.exec_cost_micro_usd + row.alive_cost_micro_usd,
  };
}

export function listSessions(ctx: Context, accountId: string): SessionView[] {
  return ctx.db
    .query<SessionRow, [string, number]>(`SELECT ${COLUMNS} FROM sandbox_sessions WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`)
    .all(accountId, LIST_CAP)
    .map((row) => sessionView(ctx, row));
}

/** Live sessions a node holds (what stops when it is lost). */
const liveOnNode = (ctx: Context, nodeId: string): string[] =>
  ctx.db.query<{ id: string }, [string]>("SELECT id FROM sandbox_sessions WHERE status = 'live' AND node_id = ?").all(nodeId).map((r) => r.id);

const liveCount = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sandbox_sessions WHERE account_id = ? AND status = 'live'").get(accountId)!.n;

/** Room for one more live session: the deployment's limit per account, and the plan's (limit name "sandboxes"). */
function assertRoom(ctx: Context, accountId: string): void {
  const n = liveCount(ctx, accountId);
  const max = ctx.config.sandboxes.max_sessions_per_account;
  if (n >= max) {
    throw new ApiError(409, "session_limit_reached", `an account may hold at most ${max} live sandbox sessions; stop one (DELETE /v1/sandboxes/sessions/:id) first`, { limit: max, live: n });
  }
  assertWithinPlanLimit(ctx, accountId, "sandboxes", n);
}

// ───────────────────────────── alive time ─────────────────────────────

const periodMs = (ctx: Context) => ctx.config.sandboxes.session_billing_period_secs * 1000;
const alivePrice = (ctx: Context) => ctx.config.sandboxes.session_price_micro_usd_per_second;

/** Holds the next period of a session's alive time (throws the meter's refusal). */
function holdPeriod(ctx: Context, s: Pick<SessionRow, "id" | "account_id" | "key_id" | "run_id">): Reservation | null {
  const amount = costOfMs(alivePrice(ctx), periodMs(ctx));
  if (amount === 0) return null;
  return ctx.meter.reserve({
    accountId: s.account_id,
    keyId: s.key_id,
    amount,
    kind: "sandbox_session",
    resource: s.id,
    runId: s.run_id,
    // Settled at the period's end; the sweeper gives it back only if svc was down for two periods and more.
    holdTtlMs: 2 * periodMs(ctx) + 10 * 60_000,
    // Stored on the session and settled at the period's end, after a restart too: a hold row.
    durable: true,
  });
}

/**
 * Settles the alive time from billed_until to `until` against the held period (inside the
 * caller's transaction): the time that passed is charged, the rest of the hold returned. A
 * hold the sweeper already gave back (svc was down that long) is charged from spendable
 * credit as far as it goes instead, never below zero.
 */
function settleAlive(ctx: Context, row: SessionRow, until: number): void {
  const ms = Math.max(0, until - row.billed_until);
  const price = alivePrice(ctx);
  const cost = costOfMs(price, ms);
  const hold = row.period_hold ? (JSON.parse(row.period_hold) as Reservation) : null;
  const units = { session_id: row.id, alive_ms: ms, price_micro_usd_per_second: price, ...(row.node_id ? { node_id: row.node_id } : {}) };
  let charged = 0;
  if (hold && cost === 0) {
    try {
      ctx.meter.release(hold);
    } catch (err) {
      if (!(err instanceof ApiError && err.type === "hold_closed")) throw err;
    }
  } else if (cost > 0) {
    try {
      if (!hold) throw new ApiError(409, "hold_closed", "no period held");
      charged = ctx.meter.settle(hold, cost, { units, status: "succeeded" }).cost;
    } catch (err) {
      if (!(err instanceof ApiError && err.type === "hold_closed")) throw err;
      const r = ctx.meter.reserve({ accountId: row.account_id, keyId: null, amount: 0, kind: "sandbox_session", resource: row.id, runId: row.run_id });
      charged = ctx.meter.settle(r, cost, { units, status: "succeeded" }).cost;
    }
  }
  ctx.db
    .query("UPDATE sandbox_sessions SET billed_until = ?, alive_cost_micro_usd = alive_cost_micro_usd + ?, period_hold = NULL WHERE id = ?")
    .run(Math.max(row.billed_until, until), charged, row.id);
}

function scheduleBill(ctx: Context, id: string, at: number): void {
  ctx.scheduler.schedule(SESSION_BILL_JOB, { session_id: id }, { runAt: at, uniqueKey: `${SESSION_BILL_JOB}:${id}:${at}` });
}

function scheduleIdle(ctx: Context, id: string, at: number): void {
  ctx.scheduler.schedule(SESSION_IDLE_JOB, { session_id: id }, { runAt: at, uniqueKey: `${SESSION_IDLE_JOB}:${id}:${at}` });
}

// ───────────────────────────── create ─────────────────────────────

export interface CreateSessionInput {
  language?: LanguageName;
  idle_timeout_s?: number;
  max_lifetime_s?: number;
  snapshot_id?: string;
  svc_run_id?: string;
}

function bounded(value: number | undefined, fallback: number, max: number, param: string, configKey: string): number {
  const v = value ?? fallback;
  if (v > max) throw invalidField(param, `must be at most ${max} seconds on this deployment (sandboxes.${configKey})`);
  return v;
}

/** POST /v1/sandboxes/sessions: 201 with the session, or the first result of its Idempotency-Key. */
export async function createSession(ctx: Context, principal: Principal, input: CreateSessionInput, idempotencyKey: string | undefined): Promise<Response> {
  const cfg = ctx.config.sandboxes;
  const idle = bounded(input.idle_timeout_s, cfg.session_idle_timeout_secs, cfg.session_idle_timeout_max_secs, "idle_timeout_s", "session_idle_timeout_max_secs");
  const life = bounded(input.max_lifetime_s, cfg.session_lifetime_secs, cfg.session_lifetime_max_secs, "max_lifetime_s", "session_lifetime_max_secs");
  const start = startIdempotent(ctx, principal.accountId, idempotencyKey, "POST /v1/sandboxes/sessions", input);
  if (start && "replay" in start) return replayResponse(start.replay);
  const claim = start?.claim ?? null;
  try {
    assertRoom(ctx, principal.accountId);
    const snapshot = input.snapshot_id === undefined ? null : ownedSnapshotNode(ctx, principal.accountId, input.snapshot_id);
    const backend: SandboxBackend = snapshot ? await backendOf(ctx, snapshot.node_id) : await backendForNew(ctx, input.language);
    const id = newId("sbs");
    const base = { id, account_id: principal.accountId, key_id: principal.keyId, run_id: input.svc_run_id ?? null };
    const hold = holdPeriod(ctx, base);
    let ws: WorkspaceRef;
    try {
      ws = await backend.createWorkspace({ quotaBytes: cfg.workspace_quota_bytes, ...(snapshot ? { fromSnapshot: snapshot.id } : {}) });
    } catch (err) {
      if (hold) ctx.meter.release(hold);
      throw asApiError(err);
    }
    try {
      const now = ctx.clock.now();
      const row: SessionRow = {
        ...base,
        language: input.language ?? null,
        node_id: backend.nodeId,
        workspace_ref: ws.id,
        snapshot_id: snapshot?.id ?? null,
        status: "live",
        stop_reason: null,
        idle_timeout_secs: idle,
        max_lifetime_secs: life,
        created_at: now,
        last_active_at: now,
        stopped_at: null,
        billed_until: now,
        period_hold: hold ? JSON.stringify(hold) : null,
        exec_count: 0,
        exec_cost_micro_usd: 0,
        alive_cost_micro_usd: 0,
      };
      const view = sessionView(ctx, row);
      ctx.tx.run(() => {
        assertRoom(ctx, principal.accountId); // again: concurrent creates waited on the backend meanwhile
        ctx.db
          .query(
            `INSERT INTO sandbox_sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            row.id, row.account_id, row.key_id, row.run_id, row.language, row.node_id, row.workspace_ref, row.snapshot_id, row.status, row.stop_reason,
            row.idle_timeout_secs, row.max_lifetime_secs, row.created_at, row.last_active_at, row.stopped_at, row.billed_until, row.period_hold,
            row.exec_count, row.exec_cost_micro_usd, row.alive_cost_micro_usd,
          );
        scheduleIdle(ctx, id, now + idle * 1000);
        ctx.scheduler.schedule(SESSION_LIFETIME_JOB, { session_id: id }, { runAt: now + life * 1000, uniqueKey: `${SESSION_LIFETIME_JOB}:${id}` });
        if (hold) scheduleBill(ctx, id, now + periodMs(ctx));
        completeIdempotent(ctx, claim, { status: 201, body: view, headers: {} });
      });
      return Response.json(view, { status: 201 });
    } catch (err) {
      if (hold) ctx.meter.release(hold);
      await backend.removeWorkspace(ws).catch(() => {});
      throw err;
    }
  } catch (err) {
    abandonIdempotent(ctx, claim);
    throw err;
  }
}

/** The snapshot a session starts from: the caller's own (404 naming snapshot_id otherwise). */
function ownedSnapshotNode(ctx: Context, accountId: string, snapshotId: string): { id: string; node_id: string | null } {
  const row = ctx.db
    .query<{ id: string; account_id: string; node_id: string | null }, [string]>("SELECT id, account_id, node_id FROM sandbox_snapshots WHERE id = ?")
    .get(snapshotId);
  if (!row || row.account_id !== accountId) throw new ApiError(404, "not_found", "sandbox snapshot not found", { param: "snapshot_id" });
  return row;
}

// ───────────────────────────── stop ─────────────────────────────

/**
 * Stops a live session (a no-op on a stopped one: false). In one transaction: the alive time up
 * to `at` is settled, the session marked stopped, sandbox_session_stopped queued. Then its
 * execs in flight are aborted and its workspace removed (not on a lost node).
 */
export function stopSession(ctx: Context, id: string, reason: StopReason, at = ctx.clock.now()): boolean {
  const row = ctx.tx.run(() => {
    const live = sessionRow(ctx, id);
    if (!live || live.status !== "live") return null;
    settleAlive(ctx, live, at);
    ctx.db.query("UPDATE sandbox_sessions SET status = 'stopped', stop_reason = ?, stopped_at = ? WHERE id = ?").run(reason, at, id);
    ctx.scheduler.cancel(`${SESSION_LIFETIME_JOB}:${id}`);
    ctx.outbox.emit("sandbox_session_stopped", live.account_id, { session_id: id, reason });
    return live;
  });
  if (!row) return false;
  void (async () => {
    await ctx.sandboxes.abort(id);
    if (reason === "node_unreachable") return;
    const backend = await backendOf(ctx, row.node_id);
    await backend.removeWorkspace(workspaceOf(row));
  })().catch((err: unknown) => ctx.log.warn("removing a stopped session's workspace failed", { session_id: id, error: err instanceof Error ? err.message : String(err) }));
  return true;
}

/** DELETE /v1/sandboxes/sessions/:id: idempotent (a stopped session answers as it is). */
export function deleteSession(ctx: Context, accountId: string, id: string): SessionView {
  ownedSession(ctx, accountId, id);
  stopSession(ctx, id, "requested");
  return sessionView(ctx, sessionRow(ctx, id)!);
}

/** Every live session of a lost node stops with node_unreachable (and its event). */
export function stopNodeSessions(ctx: Context, nodeId: string): number {
  let n = 0;
  for (const id of liveOnNode(ctx, nodeId)) if (stopSession(ctx, id, "node_unreachable")) n++;
  if (n) ctx.log.warn("sandbox sessions stopped: their node is unreachable", { node_id: nodeId, sessions: n });
  return n;
}

/** Marks the session active now (an exec or a file operation started). */
export function touchSession(ctx: Context, id: string): void {
  ctx.db.query("UPDATE sandbox_sessions SET last_active_at = max(last_active_at, ?) WHERE id = ?").run(ctx.clock.now(), id);
}

// ───────────────────────────── jobs ─────────────────────────────

const sessionIdOf = (payload: Record<string, unknown>): string => String(payload.session_id ?? "");

/** Idle check: stop when nothing ran for idle_timeout; else look again when it could be due. */
export function checkIdle(ctx: Context, id: string): void {
  const row = sessionRow(ctx, id);
  if (!row || row.status !== "live") return;
  const now = ctx.clock.now();
  const idleMs = row.idle_timeout_secs * 1000;
  // An exec running longer than the idle timeout keeps the session active.
  if (ctx.sandboxes.busy(id)) return ctx.tx.run(() => scheduleIdle(ctx, id, now + idleMs));
  const due = row.last_active_at + idleMs;
  if (due <= now) stopSession(ctx, id, "idle_timeout", due);
  else ctx.tx.run(() => scheduleIdle(ctx, id, due));
}

export function checkLifetime(ctx: Context, id: string): void {
  const row = sessionRow(ctx, id);
  if (!row || row.status !== "live") return;
  const due = row.created_at + row.max_lifetime_secs * 1000;
  const now = ctx.clock.now();
  if (due <= now) stopSession(ctx, id, "max_lifetime", due);
  else ctx.tx.run(() => ctx.scheduler.schedule(SESSION_LIFETIME_JOB, { session_id: id }, { runAt: due, uniqueKey: `${SESSION_LIFETIME_JOB}:${id}:${due}` }));
}

/** A period ended: settle it and hold the next, or stop the session when the next cannot be paid for. */
export function billSession(ctx: Context, id: string): void {
  const row = sessionRow(ctx, id);
  if (!row || row.status !== "live") return;
  const now = Math.min(ctx.clock.now(), row.created_at + row.max_lifetime_secs * 1000);
  ctx.tx.run(() => settleAlive(ctx, row, now));
  let hold: Reservation | null;
  try {
    hold = holdPeriod(ctx, row);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 402 || err.status === 403)) {
      ctx.log.info("sandbox session stopped: its next period cannot be paid for", { session_id: id, error_type: err.type });
      stopSession(ctx, id, "insufficient_credit", now);
      return;
    }
    throw err;
  }
  ctx.tx.run(() => {
    const held = ctx.db.query("UPDATE sandbox_sessions SET period_hold = ? WHERE id = ? AND status = 'live'").run(hold ? JSON.stringify(hold) : null, id).changes;
    if (!held) {
      if (hold) ctx.meter.release(hold); // stopped meanwhile
      return;
    }
    if (hold) scheduleBill(ctx, id, now + periodMs(ctx));
  });
}

export function registerSessionJobs(ctx: Context): void {
  ctx.scheduler.register(SESSION_IDLE_JOB, (job) => checkIdle(ctx, sessionIdOf(job.payload)));
  ctx.scheduler.register(SESSION_LIFETIME_JOB, (job) => checkLifetime(ctx, sessionIdOf(job.payload)));
  ctx.scheduler.register(SESSION_BILL_JOB, (job) => billSession(ctx, sessionIdOf(job.payload)));
}

/**
 * The durable job scheduler. Every timer in the product (retries, expiries, heartbeats,
 * renewals, health samples) is a row in `jobs`, so nothing is lost when the process stops:
 * a job that fell due while svc was down runs right after the next start.
 *
 * One in-process loop claims due jobs atomically (UPDATE … RETURNING with a lease), runs their
 * handlers, then deletes them or schedules a retry with backoff. A job whose process died
 * mid-run is reclaimed when its lease runs out. Handlers must be idempotent: a crash between
 * "work done" and "job deleted" runs the job again.
 */
import type { Clock } from "./clock.ts";
import type { Db } from "./db.ts";
import { newId } from "./ids.ts";
import type { Logger } from "./log.ts";
import type { Transactions } from "./transaction.ts";

export interface Job<P = Record<string, unknown>> {
  id: string;
  kind: string;
  payload: P;
  run_at: number;
  attempts: number;
  max_attempts: number;
}

export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void> | void;

interface Registration {
  handler: JobHandler;
  /** Recurring jobs are rescheduled after every run, whatever its outcome, instead of retried. */
  everyMs?: number;
}

export interface ScheduleOptions {
  runAt?: number;
  delayMs?: number;
  /** At most one pending or running job per key; a second schedule() with the key is a no-op. */
  uniqueKey?: string;
  maxAttempts?: number;
}

export interface SchedulerOptions {
  pollMs: number;
  leaseMs: number;
  concurrency: number;
}

interface JobRow {
  id: string;
  kind: string;
  payload: string;
  run_at: number;
  attempts: number;
  max_attempts: number;
}

const MAX_BACKOFF_MS = 60 * 60 * 1000;
export const retryDelayMs = (attempt: number): number => Math.min(1000 * 2 ** attempt, MAX_BACKOFF_MS);

export class Scheduler {
  private readonly handlers = new Map<string, Registration>();
  private readonly running = new Map<string, Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
  private stopping = false;
  private abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: SchedulerOptions,
  ) {}

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, { handler });
  }

  /** Registers a recurring job: runs every `everyMs`, first run due `firstInMs` from now (default: now). */
  every(kind: string, everyMs: number, handler: JobHandler, firstInMs = 0): void {
    this.handlers.set(kind, { handler, everyMs });
    this.schedule(kind, {}, { uniqueKey: `every:${kind}`, delayMs: firstInMs, maxAttempts: 1 });
  }

  /** Queues a job. Inside a transaction it becomes visible (and wakes the loop) only on commit. Returns the id, or null when uniqueKey already has a live job. */
  schedule(kind: string, payload: Record<string, unknown> = {}, opts: ScheduleOptions = {}): string | null {
    const now = this.clock.now();
    const runAt = opts.runAt ?? now + (opts.delayMs ?? 0);
    const id = newId("job");
    const result = this.db
      .query(
        `INSERT OR IGNORE INTO jobs (id, kind, payload, run_at, max_attempts, unique_key, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, kind, JSON.stringify(payload), runAt, opts.maxAttempts ?? 5, opts.uniqueKey ?? null, now, now);
    if (result.changes === 0) return null;
    if (runAt <= now + this.options.pollMs) {
      if (this.tx.active) this.tx.afterCommit(() => this.wake());
      else this.wake();
    }
    return id;
  }

  /** Removes the live job with this unique key (e.g. a timer whose reason went away). */
  cancel(uniqueKey: string): boolean {
    return this.db.query("DELETE FROM jobs WHERE unique_key = ? AND status = 'pending'").run(uniqueKey).changes > 0;
  }

  /**
   * Runs every job due now, and any that fall due while those run, until none is left or
   * running. The loop uses pump() and never waits; tests call this after moving the clock.
   */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      total += this.pump();
      if (!this.running.size) return total;
      await Promise.race(this.running.values());
    }
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.abort = new AbortController();
    // One scheduler per database: jobs a previous process left "running" are ours to resume now.
    this.db.query("UPDATE jobs SET status = 'pending', lease_until = NULL WHERE status = 'running'").run();
    this.wake();
  }

  /** Stops claiming, lets running handlers finish for up to timeoutMs, then hands unfinished jobs back to the queue. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const pending = [...this.running.values()];
    let timedOut = false;
    if (pending.length) {
      const deadline = new Promise<void>((resolve) =>
        setTimeout(() => {
          timedOut = true;
          resolve();
        }, timeoutMs),
      );
      await Promise.race([Promise.allSettled(pending), deadline]);
    }
    if (timedOut) this.abort.abort();
    const unfinished = [...this.running.keys()];
    if (unfinished.length) {
      const release = this.db.prepare("UPDATE jobs SET status = 'pending', lease_until = NULL, attempts = max(attempts - 1, 0), updated_at = ? WHERE id = ? AND status = 'running'");
      for (const id of unfinished) release.run(this.clock.now(), id);
      this.log.warn("scheduler stopped with jobs still running; released them for the next start", { jobs: unfinished.length });
    }
    this.started = false;
  }

  /** Forgets jobs that failed for good longer ago than `olderThanMs` (their error was logged). */
  pruneFailed(olderThanMs: number): number {
    return this.db.query("DELETE FROM jobs WHERE status = 'failed' AND updated_at < ?").run(this.clock.now() - olderThanMs).changes;
  }

  stats(): { pending: number; running: number; failed: number; oldest_due_ms: number | null } {
    const now = this.clock.now();
    const row = this.db
      .query<{ pending: number | null; running: number | null; failed: number | null; oldest: number | null }, [number]>(
        `SELECT sum(status = 'pending') AS pending, sum(status = 'running') AS running, sum(status = 'failed') AS failed,
                min(CASE WHEN status = 'pending' AND run_at <= ?1 THEN run_at END) AS oldest
         FROM jobs`,
      )
      .get(now)!;
    return {
      pending: row.pending ?? 0,
      running: row.running ?? 0,
      failed: row.failed ?? 0,
      oldest_due_ms: row.oldest == null ? null : now - row.oldest,
    };
  }

  private wake(): void {
    if (!this.started || this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.loop(), 0);
  }

  private loop(): void {
    this.timer = null;
    if (this.stopping) return;
    try {
      this.pump();
    } catch (err) {
      this.log.error("scheduler tick failed", { error: String(err) });
    }
    if (!this.stopping && !this.timer) this.timer = setTimeout(() => this.loop(), this.options.pollMs);
  }

  /** Starts as many due jobs as there are free slots; each finished job wakes the loop for the next. */
  private pump(): number {
    let started = 0;
    while (!this.stopping) {
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) break;
      const jobs = this.claim(free);
      if (!jobs.length) break;
      for (const job of jobs) void this.execute(job).then(() => this.wake());
      started += jobs.length;
    }
    return started;
  }

  private claim(limit: number): Job[] {
    const kinds = [...this.handlers.keys()];
    if (!kinds.length) return [];
    const now = this.clock.now();
    const rows = this.db
      .query<JobRow, [number, number, string, number]>(
        `UPDATE jobs SET status = 'running', lease_until = ?1, attempts = attempts + 1, updated_at = ?2
         WHERE id IN (
           SELECT id FROM jobs
           WHERE ((status = 'pending' AND run_at <= ?2) OR (status = 'running' AND lease_until < ?2))
             AND kind IN (SELECT value FROM json_each(?3))
           ORDER BY run_at LIMIT ?4
         )
         RETURNING id, kind, payload, run_at, attempts, max_attempts`,
      )
      .all(now + this.options.leaseMs, now, JSON.stringify(kinds), limit);
    return rows
      .sort((a, b) => a.run_at - b.run_at)
      .map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
  }

  private execute(job: Job): Promise<void> {
    const reg = this.handlers.get(job.kind)!;
    const run = (async () => {
      try {
        await reg.handler(job, this.abort.signal);
        this.finish(job, reg, null);
      } catch (err) {
        this.finish(job, reg, err instanceof Error ? err.message : String(err));
      }
    })();
    this.running.set(job.id, run);
    return run.finally(() => this.running.delete(job.id));
  }

  private finish(job: Job, reg: Registration, error: string | null): void {
    const now = this.clock.now();
    if (this.stopping && this.abort.signal.aborted) return; // released by stop()
    this.tx.run(() => {
      if (reg.everyMs !== undefined) {
        if (error) this.log.error("recurring job failed", { kind: job.kind, error });
        this.db.query("DELETE FROM jobs WHERE id = ?").run(job.id);
        this.schedule(job.kind, job.payload, { uniqueKey: `every:${job.kind}`, runAt: now + reg.everyMs, maxAttempts: 1 });
      } else if (!error) {
        this.db.query("DELETE FROM jobs WHERE id = ?").run(job.id);
      } else if (job.attempts < job.max_attempts) {
        this.log.warn("job failed; will retry", { kind: job.kind, id: job.id, attempt: job.attempts, error });
        this.db
          .query("UPDATE jobs SET status = 'pending', lease_until = NULL, run_at = ?, last_error = ?, updated_at = ? WHERE id = ?")
          .run(now + retryDelayMs(job.attempts), error, now, job.id);
      } else {
        this.log.error("job failed for the last time", { kind: job.kind, id: job.id, attempts: job.attempts, error });
        this.db.query("UPDATE jobs SET status = 'failed', lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ?").run(error, now, job.id);
      }
    });
  }
}

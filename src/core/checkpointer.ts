/**
 * WAL checkpoints off the event loop, for `svc serve` (database.checkpoints = "thread").
 *
 * SQLite checkpoints automatically inside the COMMIT that takes the WAL past 1,000 frames: the
 * committing call then copies every changed page into the database file and fsyncs it twice,
 * on the event loop, while every request waits. At the rate a metered call writes, that was
 * every ~25–60 calls for ~3–6 ms — the p99 of a lone call (bench/README.md). Here the serving
 * connection's automatic checkpoint is off and a thread with its own connection copies the
 * frames as they come (checkpoint-worker.ts). What the loop still does is hold its group
 * commits (Transactions.pause) for the thread's short final pass when the WAL is to start over
 * — calls queue, nothing blocks — at most `MAX_PAUSE_MS`.
 *
 * Durability is unchanged: a COMMIT is in the WAL (the kernel's page cache) before it returns,
 * whoever copies it to the database file later; the checkpoint fsyncs as before, on the thread.
 * If the thread fails, the connection's automatic checkpoint comes back on.
 */
import { workerEntry } from "./compiled.ts";
import type { Db } from "./db.ts";
import type { Logger } from "./log.ts";
import type { Transactions } from "./transaction.ts";
import type { CheckpointCommand, CheckpointReport } from "./checkpoint-worker.ts";

const WORKER = workerEntry("src/core/checkpoint-worker.ts", new URL("./checkpoint-worker.ts", import.meta.url));

/** SQLite's default automatic checkpoint, restored when the thread stops. */
const AUTOCHECKPOINT = 1000;
/** The longest the loop holds its group commits for a final pass. */
const MAX_PAUSE_MS = 50;

export interface CheckpointerOptions {
  /** How often the thread looks at the WAL. */
  pollMs?: number;
  /** Copy once this many frames wait (SQLite's own threshold). */
  copyFrames?: number;
  /** Start the WAL over once it holds this many frames (4 KiB each). */
  restartFrames?: number;
}

export class Checkpointer {
  private worker: Worker | null = null;
  private resume: (() => void) | null = null;
  private stopped: Promise<void> | null = null;
  /** Passes the thread ran and frames it found, for the log at stop. */
  private readonly stats = { passes: 0, restartsAsked: 0, ms: 0 };

  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly tx: Transactions,
    private readonly log: Logger,
    private readonly options: CheckpointerOptions = {},
  ) {}

  start(): void {
    if (this.worker) return;
    const worker = new Worker(WORKER);
    worker.onmessage = (event: MessageEvent<CheckpointReport>) => this.report(event.data);
    worker.onerror = (event) => this.fail(`the checkpoint thread failed: ${event.message}`);
    worker.unref();
    this.worker = worker;
    this.db.run("PRAGMA wal_autocheckpoint = 0");
    this.send({
      type: "start",
      path: this.path,
      pollMs: this.options.pollMs ?? 20,
      copyFrames: this.options.copyFrames ?? 1000,
      restartFrames: this.options.restartFrames ?? 8000,
    });
  }

  /** Stops the thread and gives checkpoints back to the connection (the last close checkpoints the rest). */
  stop(): Promise<void> {
    return (this.stopped ??= (async () => {
      const worker = this.worker;
      if (!worker) return;
      this.releaseCommits();
      await new Promise<void>((resolve) => {
        const done = setTimeout(resolve, 2_000);
        worker.onmessage = () => (clearTimeout(done), resolve());
        this.send({ type: "stop" });
      });
      worker.terminate();
      this.worker = null;
      this.db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT}`);
      this.log.debug("checkpoint thread stopped", this.stats);
    })());
  }

  private report(r: CheckpointReport): void {
    if (r.type === "pass") {
      this.stats.passes++;
      this.stats.ms += Math.round(r.ms);
    } else if (r.type === "quiesce") {
      // Hold the group commits (calls queue; the loop goes on) while the thread copies the last frames.
      if (this.resume) return;
      this.stats.restartsAsked++;
      this.resume = this.tx.pause();
      const timeout = setTimeout(() => this.releaseCommits(), MAX_PAUSE_MS);
      timeout.unref?.();
      this.send({ type: "final" });
    } else if (r.type === "final") {
      this.releaseCommits();
    } else {
      this.fail(r.message);
    }
  }

  private releaseCommits(): void {
    const resume = this.resume;
    this.resume = null;
    resume?.();
  }

  private fail(message: string): void {
    this.log.error("WAL checkpoints are back on the serving connection", { error: message });
    this.releaseCommits();
    this.worker?.terminate();
    this.worker = null;
    this.db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT}`);
  }

  private send(command: CheckpointCommand): void {
    this.worker?.postMessage(command);
  }
}

/**
 * Starts a checkpoint thread and stops it at once, for `svc doctor`: resolves once it answered,
 * rejects with why it could not load (the serving process would then checkpoint on its own
 * connection, slower, and say so in its log).
 */
export function probeCheckpointThread(timeoutMs = 5_000): Promise<void> {
  const worker = new Worker(WORKER);
  return new Promise<void>((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`the checkpoint thread did not answer within ${timeoutMs} ms`)), timeoutMs);
    worker.onmessage = () => (clearTimeout(timeout), resolve());
    worker.onerror = (event) => (clearTimeout(timeout), reject(new Error(event.message)));
    worker.postMessage({ type: "stop" } satisfies CheckpointCommand);
  }).finally(() => worker.terminate());
}

/**
 * Write transactions with after-commit and rollback hooks. bun:sqlite transactions are
 * synchronous (never await inside one); work that must only happen once the change is durable —
 * publishing outbox events to listeners, waking the scheduler — registers here and runs after
 * COMMIT, and is dropped if the transaction (or the nested savepoint that registered it) rolls
 * back. State kept in memory beside the database (the ledger's in-memory reservations) changes
 * inside the transaction and registers its undo (onRollback), which runs, newest first, when the
 * savepoint or transaction that registered it rolls back — so memory and database agree.
 *
 * Group commit (grouped): in WAL mode most of a small write transaction's cost is its COMMIT —
 * every page it dirtied appended to the WAL, and every thousand frames a checkpoint. Requests
 * in flight at the same moment queue their meter calls with grouped(); the queue runs as ONE
 * write transaction on the next turn of the event loop, each call in its own savepoint, so a
 * call that throws undoes only its own writes and rejects only its own promise. Nothing is
 * acknowledged before the shared COMMIT: a crash loses the whole group, none of which had
 * answered. Under load the hot pages (account totals, table tails) are written once per group
 * instead of once per request (bench/README.md, bench/inference.ts).
 */
import type { Db } from "./db.ts";

interface Statements {
  begin: string;
  end: string;
  undo: string[];
}

const TRANSACTION: Statements = { begin: "BEGIN IMMEDIATE", end: "COMMIT", undo: ["ROLLBACK"] };
const SAVEPOINT: Statements = { begin: "SAVEPOINT svc_tx", end: "RELEASE svc_tx", undo: ["ROLLBACK TO svc_tx", "RELEASE svc_tx"] };

/** The most calls one group commit runs; the rest wait for the next turn (bounds how long one transaction holds the loop). */
const MAX_GROUP = 128;

interface Queued {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class Transactions {
  private hooks: (() => void)[] | null = null;
  private undo: (() => void)[] = [];
  private queue: Queued[] = [];
  private flushScheduled = false;
  private paused = 0;
  private readonly endListeners: (() => void)[] = [];

  constructor(private readonly db: Db) {}

  /** Calls `listener` whenever a transaction of this connection run here ends, committed or rolled back (core/read-cache.ts). */
  onEnd(listener: () => void): void {
    this.endListeners.push(listener);
  }

  get active(): boolean {
    return this.hooks !== null;
  }

  run<T>(fn: () => T): T {
    if (this.hooks) {
      // Nested: a savepoint; forget the hooks it added, and undo its memory changes, if it rolls back.
      const mark = this.hooks.length;
      const undoMark = this.undo.length;
      try {
        return this.atomically(SAVEPOINT, fn);
      } catch (err) {
        this.hooks.length = mark;
        this.rollBackMemory(undoMark);
        throw err;
      }
    }
    this.hooks = [];
    let result: T;
    let hooks: (() => void)[];
    try {
      // Inside a transaction opened without us (db.transaction in an area's engine): a savepoint.
      result = this.atomically(this.db.inTransaction ? SAVEPOINT : TRANSACTION, fn);
    } catch (err) {
      this.rollBackMemory(0);
      throw err;
    } finally {
      hooks = this.hooks;
      this.hooks = null;
      this.undo = [];
      for (const listener of this.endListeners) listener();
    }
    for (const hook of hooks) hook();
    return result;
  }

  private rollBackMemory(mark: number): void {
    const undone = this.undo.splice(mark);
    for (let i = undone.length - 1; i >= 0; i--) undone[i]!();
  }

  /**
   * fn between the statements that open and close a transaction or savepoint, undone if it throws.
   * The statements are issued here rather than through db.transaction(fn), which builds five
   * wrapper functions per call — paid twice per metered request (bench/README.md).
   */
  private atomically<T>(s: Statements, fn: () => T): T {
    this.db.query(s.begin).run();
    try {
      const result = fn();
      this.db.query(s.end).run();
      return result;
    } catch (err) {
      // A failed COMMIT may already have ended the transaction.
      if (this.db.inTransaction) for (const undo of s.undo) this.db.query(undo).run();
      throw err;
    }
  }

  /**
   * Runs `fn` inside the open transaction WITHOUT a savepoint of its own, or in a new
   * transaction when none is open. For the money path's own steps (a hold, a capture, a
   * reservation's checks and writes), which check everything before their first write: a throw
   * then leaves nothing of theirs to undo, and the enclosing savepoint or transaction (a group
   * commit's per-call savepoint) undoes the rest as it propagates. A savepoint is not free: every
   * page first written under one is copied to its sub-journal, which measured at half the
   * statement time of a reserve + settle (bench/README.md); nesting three of them per call paid
   * that three times for no added safety.
   */
  join<T>(fn: () => T): T {
    return this.hooks ? fn() : this.run(fn);
  }

  /**
   * Runs `fn` in a write transaction shared with the other grouped() calls of this turn of the
   * event loop, in its own savepoint; resolves with its result once the group has committed
   * (after-commit hooks have run), or rejects with what `fn` threw (its writes undone) or with
   * the error that kept the group from committing (none of its writes kept).
   */
  grouped<T>(fn: () => T): Promise<T> {
    // The caller's transaction would have committed long before the group runs.
    if (this.hooks) throw new Error("grouped() called inside a transaction");
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Holds the grouped calls (they queue; nothing blocks) until the returned function is called:
   * for the checkpoint thread's last pass, which needs a moment without commits so the WAL can
   * start over (core/checkpointer.ts). Transactions run with run() are not held.
   */
  pause(): () => void {
    this.paused++;
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.paused--;
      if (!this.paused && this.queue.length && !this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    };
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.paused) return; // resumed by pause()'s release
    const group = this.queue.splice(0, MAX_GROUP);
    if (this.queue.length) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    if (group.length === 1) {
      // Alone (every call at concurrency 1): its own transaction is the savepoint. A SAVEPOINT
      // would copy every page it first writes to its sub-journal — all of them, here — to undo
      // what a ROLLBACK undoes anyway.
      const item = group[0]!;
      let value: unknown;
      try {
        value = this.run(item.fn);
      } catch (error) {
        item.reject(error);
        return;
      }
      item.resolve(value);
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      this.run(() => {
        for (const item of group) {
          try {
            outcomes.push({ ok: true, value: this.run(item.fn) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const item of group) item.reject(error);
      return;
    }
    group.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  /**
   * Runs `undo` if the current savepoint or transaction rolls back (newest first): for a change
   * made in memory inside the transaction. Throws outside a transaction.
   */
  onRollback(undo: () => void): void {
    if (!this.hooks) throw new Error("onRollback called outside a transaction");
    this.undo.push(undo);
  }

  /** Runs `hook` after the current transaction commits. Throws outside a transaction. */
  afterCommit(hook: () => void): void {
    if (!this.hooks) throw new Error("afterCommit called outside a transaction");
    this.hooks.push(hook);
  }
}

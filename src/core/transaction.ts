/**
 * Write transactions with after-commit hooks. bun:sqlite transactions are synchronous (never
 * await inside one); work that must only happen once the change is durable — publishing outbox
 * events to listeners, waking the scheduler — registers here and runs after COMMIT, and is
 * dropped if the transaction (or the nested savepoint that registered it) rolls back.
 */
import type { Db } from "./db.ts";

export class Transactions {
  private hooks: (() => void)[] | null = null;

  constructor(private readonly db: Db) {}

  get active(): boolean {
    return this.hooks !== null;
  }

  run<T>(fn: () => T): T {
    if (this.hooks) {
      // Nested: bun:sqlite turns the inner transaction into a savepoint; forget hooks it added if it rolls back.
      const mark = this.hooks.length;
      try {
        return this.db.transaction(fn).immediate();
      } catch (err) {
        this.hooks.length = mark;
        throw err;
      }
    }
    this.hooks = [];
    let result: T;
    let hooks: (() => void)[];
    try {
      result = this.db.transaction(fn).immediate();
    } finally {
      hooks = this.hooks;
      this.hooks = null;
    }
    for (const hook of hooks) hook();
    return result;
  }

  /** Runs `hook` after the current transaction commits. Throws outside a transaction. */
  afterCommit(hook: () => void): void {
    if (!this.hooks) throw new Error("afterCommit called outside a transaction");
    this.hooks.push(hook);
  }
}

/**
 * Rows every request reads but that rarely change — an API key's scopes and validity, its
 * delegation chain's caps, an account's suspension, a model route, the accounts with a live
 * webhook, an account's guardrails — kept in memory between their changes. Each read through SQLite costs 5–20 µs on a
 * busy server (a read transaction on the WAL, then the page lookups); a metered call made six of
 * them before its first byte went upstream (bench/README.md, stop 40).
 *
 * When a copy is stale. One counter row, `read_epoch`, is bumped by triggers declared on the
 * cached tables for the columns that are cached (each by its owning area, in its migration:
 * 0053–0056). A trigger runs inside whatever writes the row — any code path, the CLI, another
 * process — and commits or rolls back with it. Before using a copy this process reads the
 * counter; if it moved, every copy is dropped. So a change is seen as soon as it is committed,
 * with one exception made for speed: the counter is read at most once per turn of the event
 * loop (all the requests of one batch of I/O share one read), and again after each transaction
 * of this process ends. A change committed by another process — or by a statement of this one
 * run outside ctx.tx, which the cached areas do not do — is therefore seen from the next turn,
 * a bound of a fraction of a millisecond under load.
 *
 * Invariants:
 * - Inside a write transaction nothing is read from or stored in the cache: the transaction may
 *   have changed a cached row itself, and rolling back would put the counter back to a value
 *   the copies were not read at.
 * - Copies are dropped whole, never per entry: a counter that went up and back down (a rollback)
 *   can never make an older copy look current, because the copy was dropped when it went up.
 * - A value the caller marks uncacheable (an unknown key) is never stored: guessed tokens must
 *   not fill memory. Each space is bounded; a full space starts over.
 */
import type { Db } from "./db.ts";
import type { Transactions } from "./transaction.ts";

/** Entries per space before it starts over: far above any deployment's active keys and routes. */
const MAX_ENTRIES = 20_000;
const ALWAYS = () => true;

export class ReadCache {
  private readonly spaces = new Map<string, Map<string, unknown>>();
  /** The counter the copies were read at (null: none read yet). */
  private epoch: number | null = null;
  /** Whether the counter was read in this turn of the loop, with no transaction ended since. */
  private checked = false;
  private readonly uncheck = () => {
    this.checked = false;
  };

  constructor(
    private readonly db: Db,
    tx: Transactions,
  ) {
    tx.onEnd(this.uncheck);
  }

  /**
   * The value for `key` in `space`: the copy when it is current, else `load()` — stored unless
   * `cacheable` says no.
   */
  get<T>(space: string, key: string, load: () => T, cacheable: (value: T) => boolean = ALWAYS): T {
    if (this.db.inTransaction) return load();
    this.check();
    let entries = this.spaces.get(space);
    if (entries?.has(key)) return entries.get(key) as T;
    const value = load();
    if (!cacheable(value)) return value;
    if (!entries || entries.size >= MAX_ENTRIES) this.spaces.set(space, (entries = new Map()));
    entries.set(key, value);
    return value;
  }

  private check(): void {
    if (this.checked) return;
    const epoch = this.db.query<{ n: number }, []>("SELECT n FROM read_epoch WHERE id = 1").get()!.n;
    if (epoch !== this.epoch) this.spaces.clear();
    this.epoch = epoch;
    this.checked = true;
    setImmediate(this.uncheck);
  }
}

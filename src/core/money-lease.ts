/**
 * Who may spend from a database, and how: the money lease, a reader-writer lock between the
 * processes that open it.
 *
 * The meter keeps the reservations of request-scoped work in the memory of the process that
 * made them (core/ledger.ts, core/meter.ts): a reservation is then a check and an addition, not
 * a write transaction. Another process cannot see those, so a process keeps reservations in
 * memory only while it holds the database EXCLUSIVELY; every other spend (a durable
 * reservation, a debit, an operator's charge) needs the lease SHARED or exclusive. Money in (a
 * deposit, a grant) needs none: it only makes more credit spendable.
 *
 * - A process that spends takes the lease exclusively when nobody else holds it (`svc serve`,
 *   at start), and keeps it.
 * - A process that must spend while another holds it exclusively (an operator's `svc arena run`
 *   or `svc admin credit debit` beside a running server) asks it to yield: it writes the
 *   `.wanted` file and waits. The holder, which looks for that file every 50 ms, turns its
 *   in-memory reservations into durable holds (the `onYield` callbacks: written, so the other
 *   process sees them), lets go, and takes the lease shared. Both then spend with durable holds,
 *   which SQLite serialises. The holder takes it exclusively again once the other has let go.
 *
 * The lock is SQLite's own, on a small side file (`svc.db.money-lease`), each mode held by a
 * connection of its own in a transaction that never ends: `BEGIN EXCLUSIVE` for exclusive, a
 * read transaction for shared. The kernel drops it when the process dies, however it dies —
 * kill -9, OOM, power — so a crash never leaves a stale lease, and nothing needs a timeout, a
 * heartbeat or a PID check; SQLite's bookkeeping makes two connections in one process exclude
 * each other too. `.owner` names the exclusive holder (pid, since), for messages only.
 *
 * Two leases on one file in the same process (a CLI command run in-process beside a test's own
 * context) cannot use the `.wanted` file: the asker waits synchronously, so the holder's watch
 * never runs. The asker finds the holder in `inProcess` and has it yield at once.
 */
import { Database } from "bun:sqlite";
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { ApiError } from "./errors.ts";

/** How long a process that must spend waits for an exclusive holder to yield, by default. */
export const DEFAULT_LEASE_WAIT_MS = 5_000;
/** How often an exclusive holder looks for a process that wants to spend. */
const WATCH_MS = 50;
/** How often a shared holder tries to take the lease exclusively again. */
const UPGRADE_EVERY_MS = 1_000;
/** A `.wanted` file older than this was left by a process that gave up or died. */
const WANTED_FRESH_MS = 2 * DEFAULT_LEASE_WAIT_MS;

export type LeaseMode = "exclusive" | "shared";

/** This process's exclusive holders, by lock file: the kernel's locks are per process, so is this. */
const inProcess = new Map<string, MoneyLease>();

export const moneyPathBusy = (holder: string): ApiError =>
  new ApiError(503, "money_path_busy", `another process keeps this database's money path (${holder}) and did not yield it in time; nothing was charged — try again`, {}, { "retry-after": "5" });

export class MoneyLease {
  private conn: Database | null = null;
  private current: LeaseMode | null = null;
  private readonly yielders: (() => void)[] = [];
  private readonly listeners: ((mode: LeaseMode | null, why: string) => void)[] = [];
  private watch: ReturnType<typeof setInterval> | null = null;
  private lastUpgrade = 0;
  /** Until when a spend fails fast after waiting in vain (a server must not stall every request). */
  private refusedUntil = 0;

  /**
   * `path`: the lock file, or null for a database no other process can open (in memory), where
   * the lease is always held exclusively. `waitMs`: how long a spend waits for an exclusive holder
   * to yield (`svc serve` waits briefly: its event loop must not stall).
   */
  constructor(
    private readonly path: string | null,
    public waitMs = DEFAULT_LEASE_WAIT_MS,
  ) {}

  get mode(): LeaseMode | null {
    return this.path === null ? "exclusive" : this.current;
  }

  /** Called, in order, before this process yields its exclusive hold: keep nothing in memory after it. */
  onYield(fn: () => void): void {
    this.yielders.push(fn);
  }

  /** Told when the mode changes, and why (for the log). */
  onChange(fn: (mode: LeaseMode | null, why: string) => void): void {
    this.listeners.push(fn);
  }

  /**
   * Whether reservations may be kept in memory now: true while this process holds the lease
   * exclusively, taking it when nobody else holds it (never waiting; a shared holder tries again
   * at most once a second, and not while another process waits for a share).
   */
  exclusive(): boolean {
    if (this.mode === "exclusive") return true;
    if (this.wantedByOther()) return false;
    if (this.current === "shared") {
      const now = Date.now();
      if (now - this.lastUpgrade < UPGRADE_EVERY_MS) return false;
      this.lastUpgrade = now;
      this.drop();
      if (this.take("exclusive", 0, "nobody else spends any more")) return true;
      this.take("shared", 0, "another process still spends");
      return false;
    }
    return this.take("exclusive", 0, "first spend");
  }

  /**
   * The right to a durable spend: held in either mode, or taken shared now — asking an exclusive
   * holder to yield and waiting up to `waitMs` for it; a 503 money_path_busy otherwise.
   *
   * `canWait` false: the caller holds the database's write lock (a transaction is open), and the
   * holder cannot yield while it waits for that lock — waiting would only stall both. Take the
   * lease before opening a transaction that spends (billing's adjustments do).
   */
  requireSpend(canWait = true): void {
    if (this.mode !== null) return;
    if (this.take("shared", 0, "spending beside another process")) return;
    const neighbour = inProcess.get(this.path!);
    if (neighbour && neighbour !== this) {
      neighbour.yieldNow();
      if (this.take("shared", 0, "another context of this process yielded")) return;
    }
    if (!canWait || Date.now() < this.refusedUntil) throw moneyPathBusy(this.holder());
    this.writeWanted();
    try {
      if (this.take("shared", this.waitMs, "another process yielded")) return;
    } finally {
      this.clearWanted();
    }
    this.refusedUntil = Date.now() + 1_000;
    throw moneyPathBusy(this.holder());
  }

  /**
   * Who holds the lease of a database now, seen from a process that does not (`svc doctor`):
   * "exclusive" (a process keeps reservations in memory; `holder` names it), "shared" (processes
   * spend with written reservations), or null (nobody spends). Takes and lets go at once.
   */
  static inspect(path: string): { mode: LeaseMode | null; holder: string } {
    const probe = new MoneyLease(path, 0);
    try {
      if (probe.take("exclusive", 0, "inspect", false)) return { mode: null, holder: "" };
      if (probe.take("shared", 0, "inspect", false)) return { mode: "shared", holder: "" };
      return { mode: "exclusive", holder: probe.holder() };
    } finally {
      probe.conn?.close();
      probe.conn = null;
      probe.current = null;
    }
  }

  /** Lets go (a clean close). */
  release(): void {
    this.drop();
  }

  /** Who holds it exclusively, as far as the advice file says. */
  holder(): string {
    const pid = this.readFirstWord(`${this.path}.owner`);
    return pid ? `pid ${pid}` : "a process that did not say which";
  }

  /** `advertise` false: a look only (inspect) — no advice file, no watch, no listeners. */
  private take(mode: LeaseMode, waitMs: number, why: string, advertise = true): boolean {
    const conn = this.open();
    try {
      conn.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(waitMs))}`);
      if (mode === "exclusive") conn.run("BEGIN EXCLUSIVE");
      else {
        // A read transaction holds SQLite's SHARED lock until it ends (the file is never empty: see open()).
        conn.run("BEGIN");
        conn.query("SELECT count(*) FROM sqlite_master").get();
      }
    } catch (err) {
      conn.close();
      if (err instanceof Error && /locked|busy/i.test(err.message)) return false;
      throw err;
    }
    this.conn = conn;
    this.current = mode;
    if (!advertise) return true;
    // A shared holder tries for exclusive no sooner than a second from now: a process that just
    // yielded must get its share back before the one it yielded to could take everything.
    if (mode === "shared") this.lastUpgrade = Date.now();
    if (mode === "exclusive") {
      inProcess.set(this.path!, this);
      this.writeOwner();
      this.watch = setInterval(() => this.yieldIfWanted(), WATCH_MS);
      this.watch.unref?.();
    }
    for (const fn of this.listeners) fn(mode, why);
    return true;
  }

  private drop(): void {
    if (!this.conn) return;
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    if (this.current === "exclusive") {
      if (inProcess.get(this.path!) === this) inProcess.delete(this.path!);
      try {
        if (this.readFirstWord(`${this.path}.owner`) === String(process.pid)) rmSync(`${this.path}.owner`, { force: true });
      } catch {
        // advice only
      }
    }
    this.conn.close();
    this.conn = null;
    this.current = null;
  }

  /** The exclusive holder's watch: another process waits to spend, so give the money path a share. */
  private yieldIfWanted(): void {
    if (this.current === "exclusive" && this.wantedByOther()) this.yieldNow();
  }

  private yieldNow(): void {
    if (this.current !== "exclusive") return;
    for (const fn of this.yielders) fn();
    this.drop();
    this.lastUpgrade = Date.now();
    if (!this.take("shared", 0, "another process wants to spend")) for (const fn of this.listeners) fn(null, "another process took the money path");
  }

  private open(): Database {
    const conn = new Database(this.path!, { create: true, readwrite: true });
    // A shared hold is a read transaction, and SQLite holds no lock for reading an empty file:
    // the file gets one table, once. No journal file: nothing else is ever written to it.
    if (statSync(this.path!).size === 0) {
      conn.run(`PRAGMA busy_timeout = ${this.waitMs}`);
      conn.run("PRAGMA journal_mode = MEMORY");
      conn.run("CREATE TABLE IF NOT EXISTS lease (note TEXT)");
    }
    return conn;
  }

  private wantedByOther(): boolean {
    if (this.path === null) return false;
    // Looked at every 50 ms by a holder: no exception made for the usual answer (no file).
    const st = statSync(`${this.path}.wanted`, { throwIfNoEntry: false });
    if (!st || Date.now() - st.mtimeMs > WANTED_FRESH_MS) return false;
    const pid = this.readFirstWord(`${this.path}.wanted`);
    return pid !== null && pid !== String(process.pid);
  }

  private writeWanted(): void {
    this.writeAtomically(`${this.path}.wanted`, `${process.pid} ${new Date().toISOString()}\n`);
  }

  private clearWanted(): void {
    try {
      if (this.readFirstWord(`${this.path}.wanted`) === String(process.pid)) rmSync(`${this.path}.wanted`, { force: true });
    } catch {
      // gone already
    }
  }

  private writeOwner(): void {
    this.writeAtomically(`${this.path}.owner`, `${process.pid} ${new Date().toISOString()}\n`);
  }

  private writeAtomically(file: string, text: string): void {
    try {
      const tmp = `${file}.${process.pid}`;
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // advice only: the lock is what counts
    }
  }

  private readFirstWord(file: string): string | null {
    try {
      return readFileSync(file, "utf8").split(" ")[0] || null;
    } catch {
      return null;
    }
  }
}

/**
 * The append-only ledger. Every movement of an account's credit is one entry carrying the
 * running balance and held total after it, written in the same transaction as the update of
 * the account's totals. spendable = balance − held. Balance changes are single guarded UPDATEs
 * (… WHERE balance − held >= amount), and the accounts table CHECKs balance ≥ 0 and
 * held ≤ balance, so no interleaving of requests can spend credit that is not there.
 *
 * A balance never passes MAX_MICRO_USD (one billion dollars): every amount svc serves stays
 * within the one money type (core/schemas.ts); a credit that would pass it is refused (409).
 *
 * Kinds: credit (money in: deposit, payment), debit (spend), hold / release (reserve and
 * un-reserve spendable credit for work in flight), adjustment (operator grant or charge,
 * signed).
 *
 * Two kinds of reservation. A durable hold (hold/capture/release) is a row in `holds` plus its
 * ledger entries: for work that outlives the request and the process (a sandbox session's
 * period, a video job polled for minutes, resumed after a restart). An in-memory hold
 * (holdInMemory/captureInMemory/releaseInMemory) is kept by this process only: for
 * request-scoped work, the reservation is a check and an addition instead of a write
 * transaction, and its settle is ONE debit entry. spendable = balance − durable holds −
 * in-memory holds; the SQL guards of every spend name the in-memory total as a parameter. A
 * crash loses the in-memory holds and nothing else: they were never written, no charge was made
 * against them, and the work they covered is simply unbilled (bench/README.md, the money-crash
 * test). Because another process cannot see them, a process keeps holds in memory only while
 * it holds the money lease exclusively, and every other spend needs it at least shared
 * (core/money-lease.ts).
 */
import type { Clock } from "./clock.ts";
import type { Db } from "./db.ts";
import { ApiError } from "./errors.ts";
import { newOrderedId } from "./ids.ts";
import { MoneyLease } from "./money-lease.ts";
import { assertMicroUsd, MAX_MICRO_USD, type MicroUsd } from "./money.ts";
import type { Transactions } from "./transaction.ts";

export type EntryKind = "credit" | "debit" | "hold" | "release" | "adjustment";

/**
 * The kinds read by kind (ledger_kind_time, a partial index: migration 0051). The hold and
 * release rows of every metered call stay out of it; a query by kind repeats this term so SQLite
 * may use the index (a partial index is used only when the WHERE names its condition).
 */
export type IndexedKind = "credit" | "debit" | "adjustment";
const INDEXED_KINDS = "kind IN ('credit', 'debit', 'adjustment')";

export interface LedgerEntry {
  seq: number;
  id: string;
  account_id: string;
  kind: EntryKind;
  amount_micro_usd: MicroUsd;
  balance_after_micro_usd: MicroUsd;
  held_after_micro_usd: MicroUsd;
  hold_id: string | null;
  ref_type: string | null;
  ref_id: string | null;
  memo: string | null;
  created_at: number;
}

export interface Balance {
  balance_micro_usd: MicroUsd;
  held_micro_usd: MicroUsd;
  spendable_micro_usd: MicroUsd;
}

export interface Hold {
  id: string;
  account_id: string;
  amount_micro_usd: MicroUsd;
  status: "open" | "captured" | "released";
  purpose: string | null;
  created_at: number;
  expires_at: number;
  closed_at: number | null;
  /** Who spends it, for the meter (core/meter.ts): null on holds made without a spender. */
  key_id?: string | null;
  key_chain?: string | null;
  month?: string | null;
  kind?: string | null;
  resource?: string | null;
  run_id?: string | null;
}

/** The meter's record of who a hold is for, written with the hold (a rotation rewrites key_chain). */
export interface HoldSpender {
  keyId: string | null;
  /** JSON array of the key and its ancestors. */
  keyChain: string;
  month: string;
  kind: string;
  resource: string | null;
  runId: string | null;
}

/** A reservation kept in this process's memory (see the header): its id is unique within the process. */
export interface MemoryHold {
  readonly id: number;
  readonly accountId: string;
  readonly amount: MicroUsd;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface HoldOptions {
  expiresAt: number;
  purpose?: string;
  ref?: Ref;
  spender?: HoldSpender;
}

export interface Ref {
  type?: string;
  id?: string;
  memo?: string;
}

/** Spendable credit does not cover the amount. The meter turns this into 402 with payment terms. */
export class InsufficientCredit extends ApiError {
  constructor(
    readonly accountId: string,
    readonly requiredMicroUsd: MicroUsd,
    readonly spendableMicroUsd: MicroUsd,
  ) {
    super(402, "insufficient_credit", "spendable credit does not cover this request", {
      required_micro_usd: requiredMicroUsd,
      spendable_micro_usd: spendableMicroUsd,
    });
  }
}

/** A debit of ?1 from account ?2 only while its spendable credit covers it, ?3 being what this process holds in memory for it. */
const SPENDABLE_DEBIT =
  "UPDATE accounts SET balance_micro_usd = balance_micro_usd - ?1 WHERE id = ?2 AND balance_micro_usd - held_micro_usd - ?3 >= ?1 RETURNING balance_micro_usd, held_micro_usd";
const unknownAccount = (id: string) => new ApiError(404, "not_found", `account ${id} not found`);

interface Totals {
  balance_micro_usd: number;
  held_micro_usd: number;
}

/** Runs inside the transaction that moved an account's balance (alerts watch for crossings). */
export type BalanceListener = (change: { accountId: string; before: MicroUsd; after: MicroUsd }) => void;

export class Ledger {
  private readonly listeners: BalanceListener[] = [];
  /** Open in-memory holds by id, and their sum per account (what the SQL guards subtract). */
  private readonly memoryHolds = new Map<number, MemoryHold>();
  private readonly heldInMemory = new Map<string, MicroUsd>();
  private memoryTotal: MicroUsd = 0;
  private nextMemoryId = 1;

  constructor(
    private readonly db: Db,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    /** The right to spend from this database (core/money-lease.ts); always held for one no other process opens. */
    readonly lease: MoneyLease = new MoneyLease(null),
  ) {}

  /** Called on every balance change, inside its transaction (a listener's throw rolls the change back). */
  onBalanceChange(listener: BalanceListener): void {
    this.listeners.push(listener);
  }

  private changed(accountId: string, after: Totals, delta: MicroUsd): void {
    if (delta === 0) return;
    for (const listener of this.listeners) listener({ accountId, before: after.balance_micro_usd - delta, after: after.balance_micro_usd });
  }

  /** Balance, held (durable and in-memory holds) and spendable credit. */
  balance(accountId: string): Balance {
    const row = this.db.query<Totals, [string]>("SELECT balance_micro_usd, held_micro_usd FROM accounts WHERE id = ?").get(accountId);
    if (!row) throw unknownAccount(accountId);
    const held = row.held_micro_usd + this.memoryHeld(accountId);
    return { balance_micro_usd: row.balance_micro_usd, held_micro_usd: held, spendable_micro_usd: row.balance_micro_usd - held };
  }

  /** What this process holds in memory for the account (0 in any other process). */
  memoryHeld(accountId: string): MicroUsd {
    return this.heldInMemory.get(accountId) ?? 0;
  }

  /** Money in: a confirmed deposit or payment. */
  credit(accountId: string, amount: MicroUsd, ref: Ref = {}): LedgerEntry {
    positive(amount);
    return this.tx.run(() => {
      const totals = this.update(
        `UPDATE accounts SET balance_micro_usd = balance_micro_usd + ?1 WHERE id = ?2 AND balance_micro_usd + ?1 <= ${MAX_MICRO_USD} RETURNING balance_micro_usd, held_micro_usd`,
        amount,
        accountId,
      );
      if (!totals) throw this.overLimitOrUnknown(accountId);
      this.changed(accountId, totals, amount);
      return this.append(accountId, "credit", amount, totals, null, ref);
    });
  }

  /** Spend straight from spendable credit (no hold). */
  debit(accountId: string, amount: MicroUsd, ref: Ref = {}): LedgerEntry {
    positive(amount);
    this.lease.requireSpend(!this.db.inTransaction);
    return this.tx.join(() => {
      const totals = this.update(
        SPENDABLE_DEBIT,
        amount,
        accountId,
        this.memoryHeld(accountId),
      );
      if (!totals) throw this.shortfall(accountId, amount);
      this.changed(accountId, totals, -amount);
      return this.append(accountId, "debit", amount, totals, null, ref);
    });
  }

  /** Operator adjustment: positive grants credit, negative charges it (never below spendable). */
  adjust(accountId: string, amount: MicroUsd, ref: Ref = {}): LedgerEntry {
    assertMicroUsd(amount);
    if (amount === 0) throw new RangeError("an adjustment must not be zero");
    // Taking credit lowers spendable: only the lease holder, which sees every reservation, may.
    if (amount < 0) this.lease.requireSpend(!this.db.inTransaction);
    return this.tx.run(() => {
      const totals = this.update(
        `UPDATE accounts SET balance_micro_usd = balance_micro_usd + ?1 WHERE id = ?2 AND balance_micro_usd - held_micro_usd - ?3 + ?1 >= 0 AND balance_micro_usd + ?1 <= ${MAX_MICRO_USD} RETURNING balance_micro_usd, held_micro_usd`,
        amount,
        accountId,
        this.memoryHeld(accountId),
      );
      if (!totals) throw amount > 0 ? this.overLimitOrUnknown(accountId) : this.shortfall(accountId, -amount);
      this.changed(accountId, totals, amount);
      return this.append(accountId, "adjustment", amount, totals, null, ref);
    });
  }

  /** Reserves spendable credit for work in flight; expires_at tells the sweeper when the work is presumed dead. */
  hold(accountId: string, amount: MicroUsd, opts: HoldOptions): Hold {
    positive(amount);
    this.lease.requireSpend(!this.db.inTransaction);
    return this.tx.join(() => {
      const totals = this.update(
        "UPDATE accounts SET held_micro_usd = held_micro_usd + ?1 WHERE id = ?2 AND balance_micro_usd - held_micro_usd - ?3 >= ?1 RETURNING balance_micro_usd, held_micro_usd",
        amount,
        accountId,
        this.memoryHeld(accountId),
      );
      if (!totals) throw this.shortfall(accountId, amount);
      return this.writeHold(accountId, amount, totals, this.clock.now(), opts);
    });
  }

  /** The hold row and its ledger entry, once the account's held total took the amount. */
  private writeHold(accountId: string, amount: MicroUsd, totals: Totals, createdAt: number, opts: HoldOptions): Hold {
    const who = opts.spender;
    const spender = { key_id: who?.keyId ?? null, key_chain: who?.keyChain ?? null, month: who?.month ?? null, kind: who?.kind ?? null, resource: who?.resource ?? null, run_id: who?.runId ?? null };
    const hold: Hold = {
      id: newOrderedId("hold"),
      account_id: accountId,
      amount_micro_usd: amount,
      status: "open",
      purpose: opts.purpose ?? null,
      created_at: createdAt,
      expires_at: opts.expiresAt,
      closed_at: null,
      ...spender,
    };
    this.db
      .query(
        `INSERT INTO holds (id, account_id, amount_micro_usd, purpose, created_at, expires_at, key_id, key_chain, month, kind, resource, run_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(hold.id, accountId, amount, hold.purpose, hold.created_at, hold.expires_at, spender.key_id, spender.key_chain, spender.month, spender.kind, spender.resource, spender.run_id);
    this.append(accountId, "hold", amount, totals, hold.id, opts.ref ?? {});
    return hold;
  }

  /** Settles a hold: debits `amount` (at most the hold) and releases the rest, atomically. */
  capture(holdId: string, amount: MicroUsd, ref: Ref = {}): { debit: LedgerEntry | null; release: LedgerEntry | null; hold: Hold } {
    assertMicroUsd(amount);
    if (amount < 0) throw new RangeError("a capture cannot be negative");
    return this.tx.join(() => {
      const hold = this.closeHold(holdId, "captured", amount);
      const rest = hold.amount_micro_usd - amount;
      const totals = this.update(
        "UPDATE accounts SET held_micro_usd = held_micro_usd - ?1, balance_micro_usd = balance_micro_usd - ?2 WHERE id = ?3 RETURNING balance_micro_usd, held_micro_usd",
        hold.amount_micro_usd,
        amount,
        hold.account_id,
      )!;
      // Entries are written in the order that replays to the final totals: debit, then release.
      const debit = amount > 0 ? this.append(hold.account_id, "debit", amount, { balance_micro_usd: totals.balance_micro_usd, held_micro_usd: totals.held_micro_usd + rest }, hold.id, ref) : null;
      const release = rest > 0 ? this.append(hold.account_id, "release", rest, totals, hold.id, ref) : null;
      this.changed(hold.account_id, totals, -amount);
      return { debit, release, hold };
    });
  }

  /** Gives the whole hold back to spendable credit (the work failed or never ran). */
  release(holdId: string, ref: Ref = {}): LedgerEntry {
    return this.tx.join(() => {
      const hold = this.closeHold(holdId, "released");
      const totals = this.update(
        "UPDATE accounts SET held_micro_usd = held_micro_usd - ?1 WHERE id = ?2 RETURNING balance_micro_usd, held_micro_usd",
        hold.amount_micro_usd,
        hold.account_id,
      )!;
      return this.append(hold.account_id, "release", hold.amount_micro_usd, totals, hold.id, ref);
    });
  }

  /**
   * Reserves spendable credit in this process's memory (see the header): no write. Refused with
   * 402 insufficient_credit when spendable credit — after durable and in-memory holds — does not
   * cover it. Inside a transaction the hold is undone if the transaction rolls back.
   */
  holdInMemory(accountId: string, amount: MicroUsd, expiresAt: number): MemoryHold {
    positive(amount);
    if (this.lease.mode !== "exclusive") throw new Error("in-memory holds need the money lease held exclusively (MoneyLease.exclusive)");
    const spendable = this.balance(accountId).spendable_micro_usd;
    if (spendable < amount) throw new InsufficientCredit(accountId, amount, spendable);
    const hold: MemoryHold = { id: this.nextMemoryId++, accountId, amount, createdAt: this.clock.now(), expiresAt };
    this.openInMemory(hold);
    return hold;
  }

  /**
   * Settles an in-memory hold in the open transaction (or a new one): charges `cost` — up to the
   * hold and, above it, from spendable credit as far as it goes, never below zero — as ONE debit
   * entry, and closes the hold. Returns what was charged (less than `cost` only when the credit
   * was not there). A hold this process does not hold open (settled, released, swept, or made
   * before a restart) is refused with 409 hold_closed: a hold settles once.
   */
  captureInMemory(hold: MemoryHold, cost: MicroUsd, ref: Ref = {}): { charged: MicroUsd; entry: LedgerEntry | null } {
    assertMicroUsd(cost);
    if (cost < 0) throw new RangeError("a capture cannot be negative");
    if (this.memoryHolds.get(hold.id) !== hold) throw new ApiError(409, "hold_closed", `in-memory hold ${hold.id} is not open`);
    return this.tx.join(() => {
      // What the other reservations of the account leave: this hold's own amount is its to spend.
      const others = this.memoryHeld(hold.accountId) - hold.amount;
      let charged = cost;
      let totals = cost > 0 ? this.update(SPENDABLE_DEBIT, cost, hold.accountId, others) : null;
      if (cost > 0 && !totals) {
        // The credit is not there (a cost above the hold, or credit taken meanwhile): what there is,
        // this hold's own amount included.
        charged = Math.max(0, Math.min(cost, this.balance(hold.accountId).spendable_micro_usd + hold.amount));
        totals = charged > 0 ? this.update("UPDATE accounts SET balance_micro_usd = balance_micro_usd - ?1 WHERE id = ?2 RETURNING balance_micro_usd, held_micro_usd", charged, hold.accountId) : null;
      }
      this.closeInMemory(hold);
      if (!totals) return { charged: 0, entry: null };
      this.changed(hold.accountId, totals, -charged);
      return { charged, entry: this.append(hold.accountId, "debit", charged, totals, null, ref) };
    });
  }

  /** Gives an in-memory hold back (the work failed or never ran); false when it was not open. */
  releaseInMemory(hold: MemoryHold): boolean {
    if (this.memoryHolds.get(hold.id) !== hold) return false;
    this.closeInMemory(hold);
    return true;
  }

  /**
   * Writes an open in-memory hold as a durable one (same amount, time and expiry) and closes it in
   * memory: for the process that yields the money lease, whose reservations another process must
   * now see. Inside the caller's transaction.
   */
  persistMemoryHold(hold: MemoryHold, opts: Omit<HoldOptions, "expiresAt">): Hold {
    if (this.memoryHolds.get(hold.id) !== hold) throw new ApiError(409, "hold_closed", `in-memory hold ${hold.id} is not open`);
    return this.tx.join(() => {
      // Already counted against spendable (in memory): no guard, the amount moves from memory to the row.
      const totals = this.update("UPDATE accounts SET held_micro_usd = held_micro_usd + ?1 WHERE id = ?2 RETURNING balance_micro_usd, held_micro_usd", hold.amount, hold.accountId);
      if (!totals) throw unknownAccount(hold.accountId);
      const durable = this.writeHold(hold.accountId, hold.amount, totals, hold.createdAt, { ...opts, expiresAt: hold.expiresAt });
      this.closeInMemory(hold);
      return durable;
    });
  }

  /** Opens (+1) or closes (-1) an in-memory hold; inside a transaction, undone if it rolls back. */
  private openInMemory(hold: MemoryHold): void {
    this.moveInMemory(hold, 1);
  }

  private closeInMemory(hold: MemoryHold): void {
    this.moveInMemory(hold, -1);
  }

  private moveInMemory(hold: MemoryHold, sign: 1 | -1, undoable = true): void {
    if (sign > 0) this.memoryHolds.set(hold.id, hold);
    else this.memoryHolds.delete(hold.id);
    const left = this.memoryHeld(hold.accountId) + sign * hold.amount;
    if (left > 0) this.heldInMemory.set(hold.accountId, left);
    else this.heldInMemory.delete(hold.accountId);
    this.memoryTotal += sign * hold.amount;
    if (undoable && this.tx.active) this.tx.onRollback(() => this.moveInMemory(hold, sign > 0 ? -1 : 1, false));
  }

  getHold(holdId: string): Hold | null {
    return this.db.query<Hold, [string]>("SELECT * FROM holds WHERE id = ?").get(holdId);
  }

  /** An account's entries with seq below `beforeSeq`, newest first (the ledger's pages). */
  entriesBefore(accountId: string, beforeSeq: number, limit: number): LedgerEntry[] {
    return this.db
      .query<LedgerEntry, [string, number, number]>("SELECT * FROM ledger_entries WHERE account_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")
      .all(accountId, beforeSeq, limit);
  }

  /** The sum of entries of one kind since `since` (ms), over every account. */
  sumOf(kind: IndexedKind, since = 0): MicroUsd {
    return this.db
      .query<{ s: number | null }, [string, number]>(`SELECT sum(amount_micro_usd) AS s FROM ledger_entries WHERE kind = ? AND created_at >= ? AND ${INDEXED_KINDS}`)
      .get(kind, since)!.s ?? 0;
  }

  /**
   * What each of these accounts spent (debit entries) since `since` (ms), in one query for a
   * page of accounts; an account that spent nothing is absent from the map.
   */
  debitedSince(accountIds: readonly string[], since: number): Map<string, MicroUsd> {
    if (!accountIds.length) return new Map();
    const rows = this.db
      .query<{ account_id: string; s: number }, [number, string]>(
        `SELECT account_id, sum(amount_micro_usd) AS s FROM ledger_entries WHERE kind = 'debit' AND ${INDEXED_KINDS} AND created_at >= ? AND account_id IN (SELECT value FROM json_each(?)) GROUP BY account_id`,
      )
      .all(since, JSON.stringify(accountIds));
    return new Map(rows.map((r) => [r.account_id, r.s]));
  }

  /** Operator adjustments since `since`, split into credit added and credit taken (both positive). */
  adjustmentsSince(since = 0): { granted: MicroUsd; taken: MicroUsd } {
    const r = this.db
      .query<{ granted: number | null; taken: number | null }, [number]>(
        `SELECT sum(CASE WHEN amount_micro_usd > 0 THEN amount_micro_usd END) AS granted, -sum(CASE WHEN amount_micro_usd < 0 THEN amount_micro_usd END) AS taken FROM ledger_entries WHERE kind = 'adjustment' AND ${INDEXED_KINDS} AND created_at >= ?`,
      )
      .get(since)!;
    return { granted: r.granted ?? 0, taken: r.taken ?? 0 };
  }

  /** Accounts that have ever had credit paid in (a credit entry: a deposit or a payment). */
  payingAccounts(): number {
    return this.db.query<{ n: number }, []>(`SELECT count(DISTINCT account_id) AS n FROM ledger_entries WHERE kind = 'credit' AND ${INDEXED_KINDS}`).get()!.n;
  }

  /** Balance and held (durable and in-memory holds) summed over every account. */
  totals(): { balance_micro_usd: MicroUsd; held_micro_usd: MicroUsd } {
    const r = this.db.query<{ b: number | null; h: number | null }, []>("SELECT sum(balance_micro_usd) AS b, sum(held_micro_usd) AS h FROM accounts").get()!;
    return { balance_micro_usd: r.b ?? 0, held_micro_usd: (r.h ?? 0) + this.memoryTotal };
  }

  /** Open holds whose work should have finished by now: the sweeper releases them. */
  expiredHolds(now: number, limit = 500): Hold[] {
    return this.db.query<Hold, [number, number]>("SELECT * FROM holds WHERE status = 'open' AND expires_at <= ? ORDER BY expires_at LIMIT ?").all(now, limit);
  }

  /**
   * Closes an open hold, the first write of a capture or release; refused (nothing written) when
   * the hold is not open or a capture asks for more than it holds — capture and release run
   * without a savepoint of their own (Transactions.join) and must not throw after writing.
   */
  private closeHold(holdId: string, status: "captured" | "released", capture = 0): Hold {
    const hold = this.db
      .query<Hold, [string, number, string, number]>("UPDATE holds SET status = ?1, closed_at = ?2 WHERE id = ?3 AND status = 'open' AND amount_micro_usd >= ?4 RETURNING *")
      .get(status, this.clock.now(), holdId, capture);
    if (!hold) {
      const existing = this.getHold(holdId);
      if (existing?.status === "open") throw new RangeError(`capture of ${capture} exceeds hold ${holdId} of ${existing.amount_micro_usd}`);
      throw new ApiError(409, "hold_closed", existing ? `hold ${holdId} is already ${existing.status}` : `hold ${holdId} does not exist`);
    }
    return hold;
  }

  private update(sql: string, ...params: (string | number)[]): Totals | null {
    return this.db.query<Totals, (string | number)[]>(sql).get(...params);
  }

  /** A credit refused: the account does not exist (404), or its balance would pass MAX_MICRO_USD (409). */
  private overLimitOrUnknown(accountId: string): ApiError {
    if (!this.db.query("SELECT 1 FROM accounts WHERE id = ?").get(accountId)) return unknownAccount(accountId);
    return new ApiError(409, "balance_limit", `an account's balance may not pass ${MAX_MICRO_USD} micro-USD (one billion dollars); this credit would take it there`, {
      max_micro_usd: MAX_MICRO_USD,
    });
  }

  private shortfall(accountId: string, amount: MicroUsd): ApiError {
    const { spendable_micro_usd } = this.balance(accountId);
    return new InsufficientCredit(accountId, amount, spendable_micro_usd);
  }

  /** The entry is built here from what was inserted (a RETURNING * row cost a third of the insert). */
  private append(accountId: string, kind: EntryKind, amount: MicroUsd, totals: Totals, holdId: string | null, ref: Ref): LedgerEntry {
    const entry = {
      id: newOrderedId("le"),
      account_id: accountId,
      kind,
      amount_micro_usd: amount,
      balance_after_micro_usd: totals.balance_micro_usd,
      held_after_micro_usd: totals.held_micro_usd,
      hold_id: holdId,
      ref_type: ref.type ?? null,
      ref_id: ref.id ?? null,
      memo: ref.memo ?? null,
      created_at: this.clock.now(),
    };
    const { lastInsertRowid } = this.db
      .query<never, (string | number | null)[]>(
        `INSERT INTO ledger_entries (id, account_id, kind, amount_micro_usd, balance_after_micro_usd, held_after_micro_usd, hold_id, ref_type, ref_id, memo, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(entry.id, accountId, kind, amount, entry.balance_after_micro_usd, entry.held_after_micro_usd, holdId, entry.ref_type, entry.ref_id, entry.memo, entry.created_at);
    return { seq: Number(lastInsertRowid), ...entry };
  }
}

function positive(amount: MicroUsd): void {
  assertMicroUsd(amount);
  if (amount <= 0) throw new RangeError("amount must be a positive number of micro-USD");
}

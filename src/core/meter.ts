/**
 * The meter: the one path for every billable action.
 *
 *   reserve(worst case)  →  do the work  →  settle(actual)  or  release()
 *
 * reserve: the key may spend (not revoked, not expired, not frozen, inside its validity window,
 * the model/service allowed), every key up its delegation chain has room under its monthly and
 * lifetime caps (spent + held + amount), no key's circuit breaker trips, and the account's
 * spendable credit covers the amount (a ledger hold). settle, in ONE write transaction: the
 * ledger charges the actual cost, the chain's spend moves from held to spent (its month's row in
 * key_spend, one per key: a key's lifetime spend is the sum of its months), the usage event is
 * written, and outbox events are queued; a receipt hook (filled by the receipts domain) runs in
 * the same transaction.
 *
 * Where a reservation lives. By default in this process's memory (Ledger.holdInMemory): the
 * reservation writes nothing — its checks read the database, its hold and the chain's held
 * amounts and breaker window are additions in memory — and its settle writes one debit. A
 * caller whose reservation must outlive the process (it stores the Reservation and settles it
 * later, perhaps after a restart: a video job, a sandbox session's period) asks for a durable
 * one (`durable: true`): a hold row and key_spend.held, written in a transaction. A crash loses
 * the in-memory reservations and nothing else (no charge was made against them).
 *
 * Why no interleaving can spend past a cap or a balance: the checks and the additions of a
 * reservation run without an await between them on the one event loop, against totals that
 * include every reservation this process holds; durable ones run inside a write transaction
 * (SQLite serialises them); and no other process spends from the database meanwhile — spending
 * needs the money lease (core/money-lease.ts). The breaker's window (spend per key per rolling
 * minute) is kept in memory too, rebuilt from the last minute's usage events and open holds when
 * a process first needs it.
 *
 * reserve, settle and release each check before they write (a refusal throws before the first
 * write, or is returned as a Decision) and join the caller's transaction without a savepoint of
 * their own (Transactions.join): a throw after a write is a bug, and the enclosing savepoint or
 * transaction undoes it as it propagates.
 *
 * The meter reads and writes the key tables directly (they are part of the money path), but
 * knows nothing of routes or HTTP.
 */
import type { Clock } from "./clock.ts";
import type { Db } from "./db.ts";
import { ApiError } from "./errors.ts";
import { newOrderedId } from "./ids.ts";
import { type Hold, type Ledger, type MemoryHold } from "./ledger.ts";
import { assertMicroUsd, type MicroUsd } from "./money.ts";
import type { Outbox } from "./outbox.ts";
import type { Bus } from "./bus.ts";
import type { ReadCache } from "./read-cache.ts";
import type { Transactions } from "./transaction.ts";

/** Breaker window: spend over the last minute, in 10-second buckets. */
const BUCKET_MS = 10_000;
const WINDOW_BUCKETS = 6;
/** The longest key chain read (a key and its ancestors); delegation is far shallower than this. */
const MAX_CHAIN = 64;
/** A reservation whose work has not settled after this long is presumed dead and released by the sweeper. */
export const DEFAULT_HOLD_TTL_MS = 15 * 60_000;

export interface ReserveInput {
  accountId: string;
  /** The API key spending; null for session-initiated work (no key controls apply). */
  keyId: string | null;
  /** Worst-case cost. 0 is allowed (free work still gets a usage event), negative or fractional is not. */
  amount: MicroUsd;
  /** Usage kind, e.g. "inference", "sandbox", "mcp_call". */
  kind: string;
  /** Model id or service slug, checked against a key's allowed lists. */
  resource?: string | null;
  /** Whether `resource` names a model or a service (which allow-list applies). */
  resourceType?: "model" | "service";
  runId?: string | null;
  holdTtlMs?: number;
  /**
   * The reservation outlives this request: the caller stores it and settles it later, perhaps in
   * the process after a restart. Written as a hold row; otherwise it lives in this process's memory.
   */
  durable?: boolean;
}

export interface Reservation {
  /** The durable hold (a row in holds), or null. */
  holdId: string | null;
  /** The in-memory hold (this process's), or absent: never stored, settled only by the process that made it. */
  memoryHold?: MemoryHold | null;
  accountId: string;
  keyId: string | null;
  chain: string[];
  month: string;
  amount: MicroUsd;
  kind: string;
  resource: string | null;
  runId: string | null;
  reservedAt: number;
}

/** The signed receipt a settle produced (the receipts domain's hook fills it in). */
export interface SettledReceipt {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
}

export interface Settlement {
  usageEventId: string;
  cost: MicroUsd;
  receipt: SettledReceipt | null;
}

/** Runs inside settle's transaction; the receipts domain registers one to mint the receipt. */
export interface SettleInfo {
  reservation: Reservation;
  cost: MicroUsd;
  usageEventId: string;
  units: Record<string, unknown>;
  status: string;
  at: number;
  receiptId?: string;
  /** What the prepare hook made before the transaction (a receipt signed off the event loop), if anything. */
  prepared?: unknown;
  /** The caller's response is still being written while this settles (a stream's content): keep the event loop free. */
  responding?: boolean;
}

export type SettleHook = (info: SettleInfo) => { receipt?: SettledReceipt } | void;

/**
 * Work a settle's hooks can do BEFORE the grouped settle's transaction, on the values the settle
 * will use (its time, usage event id and cost): the receipts domain signs the receipt on a worker
 * thread here. null: nothing to prepare (the hook then does its work inline). What it resolves
 * to reaches the settle hooks as `prepared`; a hook must check it still matches what the
 * transaction decided (a cost above the hold that the balance could not cover changes it).
 */
export type PrepareHook = (info: SettleInfo) => Promise<unknown> | null;

/**
 * What a settle records beside its cost. receiptId: the id the receipt must carry, for work that
 * had to name its receipt before settling (a media asset whose embedded provenance manifest
 * cites the receipt that bills it); absent, the receipts hook picks one.
 */
export interface SettleDetails {
  units?: Record<string, unknown>;
  status?: string;
  receiptId?: string;
  /** A stream's settle: its content is on its way to the client (SettleInfo.responding). */
  responding?: boolean;
  /** Chosen before the transaction by settleGrouped, so a prepare hook worked on the same values. */
  at?: number;
  usageEventId?: string;
  prepared?: unknown;
}

/** A usage event as it was committed: what SSE feeds and webhooks of metering see. */
export interface UsageEvent {
  seq: number;
  id: string;
  account_id: string;
  key_id: string | null;
  kind: string;
  resource: string | null;
  run_id: string | null;
  cost_micro_usd: MicroUsd;
  reserved_micro_usd: MicroUsd;
  units: Record<string, unknown>;
  status: string;
  created_at: number;
}

/** Work without a configured price is refused, never billed at 0 (fail closed). */
export function requirePrice(price: MicroUsd | null | undefined, what: string): MicroUsd {
  if (price === null || price === undefined) throw new ApiError(503, "not_priced", `${what} has no price configured on this deployment; it cannot be billed, so it is refused`);
  return price;
}

export const spendCapReached = (keyId: string, cap: MicroUsd, spent: MicroUsd, period: "month" | "lifetime"): ApiError =>
  new ApiError(402, "spend_cap_reached", `API key ${keyId} has reached its ${period === "month" ? "monthly" : "total"} spend cap`, {
    key_id: keyId,
    cap_micro_usd: cap,
    spent_micro_usd: spent,
    period,
  });

export const circuitBreakerTripped = (keyId: string): ApiError =>
  new ApiError(402, "circuit_breaker_tripped", `API key ${keyId} is frozen by its circuit breaker; POST /v1/keys/${keyId}/unfreeze lifts it (paying does not)`, {
    key_id: keyId,
  });

const keyRefused = (type: string, message: string) => new ApiError(403, type, message);

interface CapHit {
  keyId: string;
  month: string;
  cap: MicroUsd;
  spent: MicroUsd;
  period: "month" | "lifetime";
}

interface KeyRow {
  id: string;
  parent_id: string | null;
  revoked_at: number | null;
  expires_at: number | null;
  not_before: number | null;
  frozen_at: number | null;
  monthly_cap_micro_usd: number | null;
  total_cap_micro_usd: number | null;
  breaker_micro_usd_per_minute: number | null;
  allowed_models: string | null;
  allowed_services: string | null;
}

export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** What a durable hold records of its reservation: who spends it, for what (the sweeper and a rotation read it). */
const holdRecord = (r: Reservation) => ({
  purpose: r.kind,
  ref: { type: r.kind, id: r.resource ?? undefined },
  spender: { keyId: r.keyId, keyChain: JSON.stringify(r.chain), month: r.month, kind: r.kind, resource: r.resource, runId: r.runId },
});

/** A key's buckets in a breaker window, made empty when it has none. */
function bucketsOf(window: Map<string, Map<number, MicroUsd>>, keyId: string): Map<number, MicroUsd> {
  let buckets = window.get(keyId);
  if (!buckets) window.set(keyId, (buckets = new Map()));
  return buckets;
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next) map.set(key, next);
  else map.delete(key);
}

type Decision = { reservation: Reservation } | { trip: string } | { cap: CapHit };

function checkAmount(input: ReserveInput): void {
  assertMicroUsd(input.amount, "amount");
  if (input.amount < 0) throw new RangeError("a reservation cannot be negative");
}

export class Meter {
  private readonly hooks: SettleHook[] = [];
  private prepareHook: PrepareHook | null = null;
  /** The breaker limit for keys without their own; the keys area sets it from its config (off until then). */
  private defaultBreakerPerMinute: () => MicroUsd = () => 0;
  /** Reservations made here by reserveGrouped and not yet settled or released (see inFlight). */
  private readonly unsettled = new WeakSet<Reservation>();
  private unsettledCount = 0;
  /** Open in-memory reservations by their hold's id (a rotation rewrites their chains). */
  private readonly live = new Map<number, Reservation>();
  /** What the in-memory reservations hold per key and month (`key month`), and per key over all months. */
  private readonly keyHeld = new Map<string, MicroUsd>();
  private readonly keyHeldTotal = new Map<string, MicroUsd>();
  /** The breaker's window: reserved-then-settled amounts per key per 10-second bucket; null until first needed (seedWindow). */
  private window: Map<string, Map<number, MicroUsd>> | null = null;

  constructor(
    private readonly db: Db,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly ledger: Ledger,
    private readonly outbox: Outbox,
    /** Committed usage events, for SSE feeds (published after commit). */
    readonly usage: Bus<UsageEvent>,
    private readonly reads: ReadCache,
  ) {
    ledger.lease.onYield(() => this.persistInFlight());
  }

  onPrepareSettle(hook: PrepareHook): void {
    this.prepareHook = hook;
  }

  onSettle(hook: SettleHook): void {
    this.hooks.push(hook);
  }

  /** Where keys without a breaker of their own take their limit from (per rolling minute; 0 = off). */
  useDefaultBreaker(limit: () => MicroUsd): void {
    this.defaultBreakerPerMinute = limit;
  }

  /**
   * The key and its ancestors, nearest first: a primary-key read per level (most keys have no
   * parent), cheaper than one recursive query — which cost more than the rest of a reservation —
   * and outside a transaction served from the read cache (core/read-cache.ts): a key's limits
   * change rarely. Its lifetime spend, which every settle changes, is not part of the row; capHit
   * reads it (lifetimeSpent).
   */
  chain(keyId: string): KeyRow[] {
    const chain: KeyRow[] = [];
    // Bounded: delegation is a tree, but a chain longer than this would be corrupt data, not a reason to loop.
    for (let id: string | null = keyId; id !== null && chain.length < MAX_CHAIN; ) {
      const key = this.keyRow(id);
      if (!key) break;
      chain.push(key);
      id = key.parent_id;
    }
    return chain;
  }

  private keyRow(id: string): KeyRow | null {
    const load = () =>
      this.db
        .query<KeyRow, [string]>(
          `SELECT id, parent_id, revoked_at, expires_at, not_before, frozen_at, monthly_cap_micro_usd, total_cap_micro_usd,
                  breaker_micro_usd_per_minute, allowed_models, allowed_services
           FROM api_keys WHERE id = ?`,
        )
        .get(id);
    return this.reads.get("meter.key", id, load, (row) => row !== null);
  }

  reserve(input: ReserveInput): Reservation {
    checkAmount(input);
    return this.outcome(this.decide(input, this.keepsInMemory(input)));
  }

  /**
   * Where this reservation will live: in memory unless the caller asked for a durable one or
   * another process spends from the database too (the lease is not held exclusively).
   */
  private keepsInMemory(input: ReserveInput): boolean {
    return input.amount > 0 && !input.durable && this.ledger.lease.exclusive();
  }

  private addUnsettled(r: Reservation): Reservation {
    this.unsettled.add(r);
    this.unsettledCount++;
    return r;
  }

  /**
   * reserve, group-committed with the meter calls of other requests in flight (Transactions.grouped).
   *
   * An in-memory reservation (the default) writes nothing, so it is decided at once, without
   * waiting for a group; only a durable one joins the group commit.
   *
   * `start`: the work to begin as soon as the reservation is decided — right after its checks
   * passed and its hold is taken (for a durable one, inside its transaction before the COMMIT, so
   * the commit's cost overlaps the work instead of preceding it). It must only start work (a
   * fetch handed to the runtime's HTTP thread), never touch the database or wait. A refused
   * reservation starts nothing. If a durable reservation's COMMIT fails, this rejects and the
   * caller must abort what it started; a crash before it loses the hold, never money — the work
   * is then unbilled, as for a crash at any later point before its settle.
   */
  async reserveGrouped(input: ReserveInput, start?: (r: Reservation) => void): Promise<Reservation> {
    checkAmount(input);
    if (input.amount === 0 || this.keepsInMemory(input)) {
      const reservation = this.outcome(this.decide(input, input.amount > 0));
      try {
        start?.(reservation);
      } catch (err) {
        this.release(reservation);
        throw err;
      }
      return this.addUnsettled(reservation);
    }
    // The lease before the group's transaction: waiting for another process to yield it while
    // holding the database's write lock would keep that process from yielding.
    this.ledger.lease.requireSpend();
    const reservation = this.outcome(
      await this.tx.grouped(() => {
        const decision = this.decide(input, false);
        if (start && "reservation" in decision) start(decision.reservation);
        return decision;
      }),
    );
    return this.addUnsettled(reservation);
  }

  /**
   * Metered calls of this process between their grouped reserve and their settle or release: how
   * many calls share the event loop now. A hint for choosing where to do work (the receipts area
   * signs a lone call's receipt inline, where a thread's round trip would only add latency), never
   * for money: a reservation abandoned without a settle or release stays counted.
   */
  get inFlight(): number {
    return this.unsettledCount;
  }

  private leaveInFlight(r: Reservation): void {
    if (this.unsettled.delete(r)) this.unsettledCount--;
  }

  /**
   * settle, group-committed (Transactions.grouped). `within` runs in the settle's own
   * transaction, after it: a caller's record of the charge (a batch line's result) commits with
   * the charge or not at all.
   */
  async settleGrouped(r: Reservation, cost: MicroUsd, details: SettleDetails = {}, within?: (s: Settlement) => void): Promise<Settlement> {
    const at = this.clock.now();
    const usageEventId = newOrderedId("use");
    const status = details.status ?? "succeeded";
    const preparing = this.prepareHook?.({ reservation: r, cost, usageEventId, units: { ...details.units }, status, at, receiptId: details.receiptId, responding: details.responding }) ?? null;
    const prepared = preparing ? await preparing.catch(() => undefined) : undefined;
    return this.tx.grouped(() => {
      const settlement = this.settle(r, cost, { ...details, at, usageEventId, prepared });
      within?.(settlement);
      return settlement;
    });
  }

  /** release, group-committed (Transactions.grouped). */
  releaseGrouped(r: Reservation): Promise<void> {
    return this.tx.grouped(() => this.release(r));
  }

  /**
   * The reservation's checks and writes. Refusals that must leave a trace (a tripped breaker
   * stays tripped; a reached cap fires its event) are returned rather than thrown, so the trace
   * commits; outcome() turns them into the error.
   */
  private decide(input: ReserveInput, inMemory: boolean): Decision {
    // The checks must see every reservation that can compete with this one: the lease first (held
    // exclusively when the reservation stays in memory: keepsInMemory).
    if (input.amount > 0 && !inMemory) this.ledger.lease.requireSpend(!this.db.inTransaction);
    const now = this.clock.now();
    // A durable reservation is checked and written in ONE write transaction: another process may
    // spend beside this one, and SQLite serialises their transactions. An in-memory one needs none:
    // the lease keeps other processes from spending, and nothing between its checks and its
    // additions awaits.
    const decision = inMemory || input.amount === 0 ? this.checkAndHold(input, now, inMemory) : this.tx.join(() => this.checkAndHold(input, now, false));
    if ("cap" in decision) this.recordCapReached(input.accountId, decision.cap, now);
    return decision;
  }

  private checkAndHold(input: ReserveInput, now: number, inMemory: boolean): Decision {
    const month = monthOf(now);
    const chain = input.keyId ? this.chain(input.keyId) : [];
    if (input.keyId && chain.length === 0) throw keyRefused("invalid_api_key", "the API key does not exist");
    for (const key of chain) this.checkUsable(key, input, now);
    for (const key of chain) {
      const hit = this.capHit(key, input.amount, month);
      if (hit) return { cap: hit };
    }
    for (const key of chain) {
      if (this.breakerWouldTrip(key, input.amount, now)) {
        this.tx.join(() => this.db.query("UPDATE api_keys SET frozen_at = ?, frozen_reason = ? WHERE id = ? AND frozen_at IS NULL").run(now, "circuit breaker: spend per minute above the limit", key.id));
        return { trip: key.id };
      }
    }
    const ids = chain.map((k) => k.id);
    const reservation: Reservation = {
      holdId: null,
      accountId: input.accountId,
      keyId: input.keyId,
      chain: ids,
      month,
      amount: input.amount,
      kind: input.kind,
      resource: input.resource ?? null,
      runId: input.runId ?? null,
      reservedAt: now,
    };
    if (input.amount === 0) return { reservation };
    const expiresAt = now + (input.holdTtlMs ?? DEFAULT_HOLD_TTL_MS);
    if (inMemory) {
      reservation.memoryHold = this.ledger.holdInMemory(input.accountId, input.amount, expiresAt);
      this.track(reservation, +1);
    } else {
      reservation.holdId = this.ledger.hold(input.accountId, input.amount, { expiresAt, ...holdRecord(reservation) }).id;
      this.addDurablyHeld(ids, month, input.amount);
    }
    for (const id of ids) this.addToWindow(id, input.amount, now);
    return { reservation };
  }

  private addDurablyHeld(chain: string[], month: string, amount: MicroUsd): void {
    for (const id of chain) {
      this.db
        .query("INSERT INTO key_spend (key_id, month, held_micro_usd) VALUES (?, ?, ?) ON CONFLICT (key_id, month) DO UPDATE SET held_micro_usd = held_micro_usd + excluded.held_micro_usd")
        .run(id, month, amount);
    }
  }

  /**
   * This process yields the money lease (another process must spend too): every open in-memory
   * reservation becomes a durable hold, written in one transaction, exactly as if it had been
   * made durable — its Reservation now names the hold, and settles or releases through it.
   */
  private persistInFlight(): void {
    if (!this.live.size) return;
    const moved: [Reservation, string][] = [];
    this.tx.run(() => {
      for (const r of [...this.live.values()]) {
        moved.push([r, this.ledger.persistMemoryHold(r.memoryHold!, holdRecord(r)).id]);
        this.addDurablyHeld(r.chain, r.month, r.amount);
        this.track(r, -1);
      }
    });
    for (const [r, holdId] of moved) {
      r.holdId = holdId;
      r.memoryHold = null;
    }
  }

  /** Adds (+1) or removes (-1) an in-memory reservation's amount to its chain's held totals; undone with the transaction it ran in. */
  private track(r: Reservation, sign: 1 | -1): void {
    const apply = (s: 1 | -1) => {
      if (s > 0) this.live.set(r.memoryHold!.id, r);
      else this.live.delete(r.memoryHold!.id);
      for (const id of r.chain) {
        bump(this.keyHeld, `${id} ${r.month}`, s * r.amount);
        bump(this.keyHeldTotal, id, s * r.amount);
      }
    };
    apply(sign);
    if (this.tx.active) this.tx.onRollback(() => apply(sign > 0 ? -1 : 1));
  }

  /** The open in-memory reservation a settle or release names, or 409 hold_closed (it settles once). */
  private liveReservation(r: Reservation): Reservation {
    const live = this.live.get(r.memoryHold!.id);
    if (!live || live.memoryHold !== r.memoryHold) throw new ApiError(409, "hold_closed", "this reservation was already settled or released (or did not survive a restart)");
    return live;
  }

  private outcome(decision: Decision): Reservation {
    if ("trip" in decision) throw circuitBreakerTripped(decision.trip);
    if ("cap" in decision) throw spendCapReached(decision.cap.keyId, decision.cap.cap, decision.cap.spent, decision.cap.period);
    return decision.reservation;
  }

  /**
   * Charges the actual cost, releases the rest of the reservation, records usage. A cost above
   * the reservation (an upstream that produced more than its estimate) is charged from
   * spendable credit as far as it goes, never below zero; what could not be charged is
   * recorded on the usage event as uncharged_micro_usd.
   */
  settle(r: Reservation, cost: MicroUsd, details: SettleDetails = {}): Settlement {
    assertMicroUsd(cost, "cost");
    if (cost < 0) throw new RangeError("a settled cost cannot be negative");
    const now = details.at ?? this.clock.now();
    const status = details.status ?? "succeeded";
    const units = { ...details.units };
    this.leaveInFlight(r);
    return this.tx.join(() => {
      if (r.memoryHold) {
        // In memory: one debit of the cost (above the hold, from spendable credit as far as it goes).
        const live = this.liveReservation(r);
        const { charged } = this.ledger.captureInMemory(r.memoryHold, cost, { type: r.kind, id: r.resource ?? undefined });
        if (charged < cost) units.uncharged_micro_usd = cost - charged;
        cost = charged;
        this.track(live, -1);
        this.addSpent(live.chain, r.month, cost);
        for (const id of live.chain) if (r.amount !== cost) this.addToWindow(id, cost - r.amount, now);
      } else {
        let billed = cost;
        // The hold pays up to its amount; above it, spendable credit as far as it goes.
        const closed = r.holdId ? this.ledger.capture(r.holdId, Math.min(cost, r.amount), { type: r.kind, id: r.resource ?? undefined }).hold : null;
        if (cost > r.amount) {
          const extra = cost - r.amount;
          const take = Math.min(extra, this.ledger.balance(r.accountId).spendable_micro_usd);
          if (take > 0) this.ledger.debit(r.accountId, take, { type: r.kind, id: r.resource ?? undefined, memo: "usage above its reservation" });
          billed = r.amount + take;
          if (take < extra) units.uncharged_micro_usd = extra - take;
        }
        cost = billed;
        this.moveChain(r, cost, now, closed);
      }
      const usageEventId = details.usageEventId ?? newOrderedId("use");
      // seq is the rowid (INTEGER PRIMARY KEY): no RETURNING needed.
      const { lastInsertRowid } = this.db
        .query<never, (string | number | null)[]>(
          `INSERT INTO usage_events (id, account_id, key_id, kind, resource, run_id, cost_micro_usd, reserved_micro_usd, units, status, hold_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(usageEventId, r.accountId, r.keyId, r.kind, r.resource, r.runId, cost, r.amount, JSON.stringify(units), status, r.holdId ?? null, now);
      const event: UsageEvent = { seq: Number(lastInsertRowid), id: usageEventId, account_id: r.accountId, key_id: r.keyId, kind: r.kind, resource: r.resource, run_id: r.runId, cost_micro_usd: cost, reserved_micro_usd: r.amount, units, status, created_at: now };
      this.tx.afterCommit(() => this.usage.publish(event));
      let receipt: SettledReceipt | null = null;
      for (const hook of this.hooks) receipt = hook({ reservation: r, cost, usageEventId, units, status, at: now, receiptId: details.receiptId, prepared: details.prepared })?.receipt ?? receipt;
      return { usageEventId, cost, receipt };
    });
  }

  /** The work failed or never ran: nothing is charged and the reservation is returned. */
  release(r: Reservation): void {
    const now = this.clock.now();
    this.leaveInFlight(r);
    if (r.memoryHold) {
      // Nothing written: the hold, the chain's held amounts and the breaker window give it back in memory.
      const live = this.liveReservation(r);
      this.ledger.releaseInMemory(r.memoryHold);
      this.track(live, -1);
      for (const id of live.chain) this.addToWindow(id, -r.amount, now);
      return;
    }
    this.tx.join(() => {
      if (r.holdId) this.ledger.release(r.holdId, { type: r.kind, memo: "released" });
      this.moveChain(r, 0, now);
    });
  }

  /** A key's spend and open holds in one UTC month (YYYY-MM; default: the current one). */
  monthSpend(keyId: string, month = monthOf(this.clock.now())): { spent: MicroUsd; held: MicroUsd } {
    const row = this.db
      .query<{ spent: number; held: number }, [string, string]>("SELECT spent_micro_usd AS spent, held_micro_usd AS held FROM key_spend WHERE key_id = ? AND month = ?")
      .get(keyId, month);
    return { spent: row?.spent ?? 0, held: (row?.held ?? 0) + (this.keyHeld.get(`${keyId} ${month}`) ?? 0) };
  }

  /**
   * What a key (with the keys delegated below it) has spent since it was made: the sum of its
   * months, plus what it carried from before its months were the record (migration 0057). Kept
   * as a sum instead of a counter so that a settle writes one row per key, not two.
   */
  lifetimeSpent(keyId: string): MicroUsd {
    return (
      this.db
        .query<{ spent: number }, [string]>(
          "SELECT spent_carried_micro_usd + coalesce((SELECT sum(spent_micro_usd) FROM key_spend WHERE key_id = api_keys.id), 0) AS spent FROM api_keys WHERE id = ?",
        )
        .get(keyId)?.spent ?? 0
    );
  }

  /** What a key has reserved and not yet settled, across months (durable and in-memory reservations). */
  heldByKey(keyId: string): MicroUsd {
    const durable = this.db.query<{ held: number | null }, [string]>("SELECT sum(held_micro_usd) AS held FROM key_spend WHERE key_id = ?").get(keyId)?.held ?? 0;
    return durable + (this.keyHeldTotal.get(keyId) ?? 0);
  }

  /**
   * A rotated key's metering moves to its replacement: its spend per month, its breaker window,
   * and the open holds of work in flight (which then settles against the replacement). Call
   * inside the rotation's transaction.
   */
  transferKey(fromKeyId: string, toKeyId: string): void {
    this.db.query("UPDATE key_spend SET key_id = ? WHERE key_id = ?").run(toKeyId, fromKeyId);
    // In memory, once the rotation commits: the in-flight reservations, their held amounts, the breaker window.
    const moveInMemory = () => {
      for (const r of this.live.values()) {
        if (!r.chain.includes(fromKeyId)) continue;
        r.chain = r.chain.map((id) => (id === fromKeyId ? toKeyId : id));
        if (r.keyId === fromKeyId) r.keyId = toKeyId;
      }
      for (const [k, v] of [...this.keyHeld]) {
        const [id, month] = k.split(" ");
        if (id !== fromKeyId) continue;
        this.keyHeld.delete(k);
        bump(this.keyHeld, `${toKeyId} ${month}`, v);
      }
      const total = this.keyHeldTotal.get(fromKeyId);
      if (total) (this.keyHeldTotal.delete(fromKeyId), bump(this.keyHeldTotal, toKeyId, total));
      const window = this.windowOf(fromKeyId);
      this.window!.delete(fromKeyId);
      const into = this.windowOf(toKeyId);
      for (const [bucket, amount] of window) into.set(bucket, (into.get(bucket) ?? 0) + amount);
    };
    if (this.tx.active) this.tx.afterCommit(moveInMemory);
    else moveInMemory();
    this.db
      .query(
        `UPDATE holds SET key_chain = replace(key_chain, '"' || ?1 || '"', '"' || ?2 || '"'), key_id = CASE WHEN key_id = ?1 THEN ?2 ELSE key_id END
         WHERE status = 'open' AND key_chain LIKE '%' || ?1 || '%'`,
      )
      .run(fromKeyId, toKeyId);
  }

  /** Empties a key's breaker window (an unfrozen key starts counting afresh). */
  resetBreaker(keyId: string): void {
    this.window?.delete(keyId);
  }

  /** Forgets breaker buckets older than the window (a recurring job); returns how many went. */
  pruneWindow(): number {
    const oldest = Math.floor(this.clock.now() / BUCKET_MS) - (WINDOW_BUCKETS - 1);
    let pruned = 0;
    for (const [keyId, buckets] of this.window ?? []) {
      for (const bucket of buckets.keys()) if (bucket < oldest) (buckets.delete(bucket), pruned++);
      if (!buckets.size) this.window!.delete(keyId);
    }
    return pruned;
  }

  /** Releases reservations whose work died (the process crashed mid-request, a stream hung). */
  sweep(limit = 500): number {
    const now = this.clock.now();
    let released = 0;
    for (const r of [...this.live.values()]) {
      if (r.memoryHold!.expiresAt > now) continue;
      this.release(r);
      released++;
    }
    for (const hold of this.ledger.expiredHolds(now, limit)) {
      const row = this.db
        .query<{ key_id: string | null; key_chain: string | null; month: string | null; kind: string | null; resource: string | null; run_id: string | null }, [string]>(
          "SELECT key_id, key_chain, month, kind, resource, run_id FROM holds WHERE id = ?",
        )
        .get(hold.id)!;
      try {
        this.release({
          holdId: hold.id,
          accountId: hold.account_id,
          keyId: row.key_id,
          chain: row.key_chain ? (JSON.parse(row.key_chain) as string[]) : [],
          month: row.month ?? monthOf(hold.created_at),
          amount: hold.amount_micro_usd,
          kind: row.kind ?? "unknown",
          resource: row.resource,
          runId: row.run_id,
          reservedAt: hold.created_at,
        });
        released++;
      } catch (err) {
        // Settled or released meanwhile by the request that owned it: nothing to sweep.
        if (!(err instanceof ApiError && err.type === "hold_closed")) throw err;
      }
    }
    return released;
  }

  private checkUsable(key: KeyRow, input: ReserveInput, now: number): void {
    if (key.revoked_at !== null) throw keyRefused("api_key_revoked", `API key ${key.id} (or a key it was delegated from) has been revoked`);
    if (key.expires_at !== null && key.expires_at <= now) throw keyRefused("api_key_expired", `API key ${key.id} (or a key it was delegated from) has expired`);
    if (key.not_before !== null && key.not_before > now) throw keyRefused("api_key_not_yet_valid", `API key ${key.id} is not valid yet`);
    if (key.frozen_at !== null) throw circuitBreakerTripped(key.id);
    const list = input.resourceType === "service" ? key.allowed_services : input.resourceType === "model" ? key.allowed_models : null;
    if (list !== null && input.resource) {
      const allowed = JSON.parse(list) as string[];
      if (!allowed.includes(input.resource)) {
        throw new ApiError(403, "resource_not_allowed", `API key ${key.id} may not use ${input.resourceType} "${input.resource}"`, { allowed });
      }
    }
  }

  /** The cap this reservation would break, if any (monthly first, then lifetime). */
  private capHit(key: KeyRow, amount: MicroUsd, month: string): CapHit | null {
    if (key.monthly_cap_micro_usd !== null) {
      const row = this.db.query<{ spent: number; held: number }, [string, string]>("SELECT spent_micro_usd AS spent, held_micro_usd AS held FROM key_spend WHERE key_id = ? AND month = ?").get(key.id, month);
      if ((row?.spent ?? 0) + (row?.held ?? 0) + (this.keyHeld.get(`${key.id} ${month}`) ?? 0) + amount > key.monthly_cap_micro_usd) {
        return { keyId: key.id, month, cap: key.monthly_cap_micro_usd, spent: row?.spent ?? 0, period: "month" };
      }
    }
    if (key.total_cap_micro_usd !== null) {
      const held = this.heldByKey(key.id);
      const spent = this.lifetimeSpent(key.id);
      if (spent + held + amount > key.total_cap_micro_usd) {
        return { keyId: key.id, month, cap: key.total_cap_micro_usd, spent, period: "lifetime" };
      }
    }
    return null;
  }

  /** spend_cap_reached fires once per key per month, however many requests the cap refuses. */
  private recordCapReached(accountId: string, hit: CapHit, now: number): void {
    this.tx.run(() => {
      const first = this.db
        .query(
          `INSERT INTO key_spend (key_id, month, cap_event_at) VALUES (?1, ?2, ?3)
           ON CONFLICT (key_id, month) DO UPDATE SET cap_event_at = ?3 WHERE cap_event_at IS NULL`,
        )
        .run(hit.keyId, hit.month, now).changes;
      if (first) {
        this.outbox.emit("spend_cap_reached", accountId, { key_id: hit.keyId, period: hit.period, month: hit.month, cap_micro_usd: hit.cap, spent_micro_usd: hit.spent });
      }
    });
  }

  private breakerWouldTrip(key: KeyRow, amount: MicroUsd, now: number): boolean {
    const limit = key.breaker_micro_usd_per_minute ?? this.defaultBreakerPerMinute();
    if (limit === 0 || amount === 0) return false;
    const from = Math.floor(now / BUCKET_MS) - (WINDOW_BUCKETS - 1);
    let recent = 0;
    for (const [bucket, spent] of this.windowOf(key.id)) if (bucket >= from) recent += spent;
    return recent + amount > limit;
  }

  /** Adds to a key's breaker bucket (negative: gives back what a settle did not spend); undone with the transaction it ran in. */
  private addToWindow(keyId: string, amount: MicroUsd, now: number): void {
    if (amount === 0) return;
    const bucket = Math.floor(now / BUCKET_MS);
    const buckets = this.windowOf(keyId);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + amount);
    if (this.tx.active) this.tx.onRollback(() => buckets.set(bucket, (buckets.get(bucket) ?? 0) - amount));
  }

  private windowOf(keyId: string): Map<number, MicroUsd> {
    return bucketsOf((this.window ??= this.seedWindow()), keyId);
  }

  /**
   * The breaker's window as the database tells it, for the process that starts spending: the
   * last minute's settled costs (usage events, newest first, read until they are older) and the
   * open durable holds made in it, each counted for its key and every key it was delegated from.
   */
  private seedWindow(): Map<string, Map<number, MicroUsd>> {
    const window = new Map<string, Map<number, MicroUsd>>();
    const since = (Math.floor(this.clock.now() / BUCKET_MS) - (WINDOW_BUCKETS - 1)) * BUCKET_MS;
    const chains = new Map<string, string[]>();
    const add = (ids: string[], amount: number, at: number) => {
      const bucket = Math.floor(at / BUCKET_MS);
      for (const id of ids) {
        const buckets = bucketsOf(window, id);
        buckets.set(bucket, (buckets.get(bucket) ?? 0) + amount);
      }
    };
    const recent = this.db.query<{ key_id: string | null; cost: number; at: number }, []>("SELECT key_id, cost_micro_usd AS cost, created_at AS at FROM usage_events ORDER BY seq DESC");
    for (const e of recent.iterate()) {
      if (e.at < since) break;
      if (!e.key_id || !e.cost) continue;
      let ids = chains.get(e.key_id);
      if (!ids) chains.set(e.key_id, (ids = this.chain(e.key_id).map((k) => k.id)));
      add(ids, e.cost, e.at);
    }
    const open = this.db.query<{ key_chain: string | null; amount: number; at: number }, [number]>(
      "SELECT key_chain, amount_micro_usd AS amount, created_at AS at FROM holds WHERE status = 'open' AND expires_at >= ?",
    );
    for (const h of open.all(since)) if (h.key_chain && h.at >= since) add(JSON.parse(h.key_chain) as string[], h.amount, h.at);
    return window;
  }

  /** Adds a settled cost to each key's month (a row for the month made if none), which is also its lifetime spend (lifetimeSpent). */
  private addSpent(chain: string[], month: string, cost: MicroUsd): void {
    if (!cost) return;
    for (const id of chain) {
      this.db
        .query("INSERT INTO key_spend (key_id, month, spent_micro_usd) VALUES (?, ?, ?) ON CONFLICT (key_id, month) DO UPDATE SET spent_micro_usd = spent_micro_usd + excluded.spent_micro_usd")
        .run(id, month, cost);
    }
  }

  /**
   * Moves a reservation's amount out of `held` along the chain and adds the actual cost to
   * `spent`. The chain is read from the hold, not the caller's copy: rotating a key while its
   * work is in flight rewrites the hold's chain to the replacement.
   */
  private moveChain(r: Reservation, cost: MicroUsd, now: number, closed: Hold | null = null): void {
    if (!r.holdId) return;
    const recorded = closed ?? this.db.query<{ key_chain: string | null; month: string | null }, [string]>("SELECT key_chain, month FROM holds WHERE id = ?").get(r.holdId);
    const chain = recorded?.key_chain ? (JSON.parse(recorded.key_chain) as string[]) : r.chain;
    const month = recorded?.month ?? r.month;
    for (const id of chain) {
      this.db.query("UPDATE key_spend SET held_micro_usd = max(held_micro_usd - ?, 0), spent_micro_usd = spent_micro_usd + ? WHERE key_id = ? AND month = ?").run(r.amount, cost, id, month);
      // The breaker counts what was reserved; give back what was not spent.
      if (r.amount !== cost) this.addToWindow(id, cost - r.amount, now);
    }
  }
}

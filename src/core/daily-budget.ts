/**
 * A global budget per UTC day for work the operator pays for (the keyless assistant, the public
 * terminal): what the day has spent (persisted by the area, in its own table) plus the worst
 * case of what is in flight (memory: one `svc serve` per database) must stay within the budget.
 * Over it: 503 `<name>_budget_exhausted` with Retry-After until midnight UTC.
 */
import type { Clock } from "./clock.ts";
import { ApiError } from "./errors.ts";

const DAY_MS = 86_400_000;

/** "2026-11-24": the UTC day of a time. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Where an area keeps its days' spend. */
export interface DaySpendStore {
  spent(day: string): number;
  /** Adds one finished piece of work's cost to the day. */
  add(day: string, cost: number): void;
}

export interface BudgetHold {
  day: string;
  amount: number;
}

export class DailyBudget {
  private inFlight = 0;

  constructor(
    /** Names the error type: `${name}_budget_exhausted`, and the message. */
    private readonly name: string,
    private readonly clock: Clock,
    private readonly store: DaySpendStore,
    private readonly budget: () => number,
  ) {}

  spentToday(): number {
    return this.store.spent(utcDay(this.clock.now()));
  }

  /** Holds `amount` against today's budget, or throws 503 with Retry-After until midnight UTC. */
  hold(amount: number): BudgetHold {
    const now = this.clock.now();
    if (this.spentToday() + this.inFlight + amount > this.budget()) {
      const retryAfter = Math.max(1, Math.ceil((Math.floor(now / DAY_MS + 1) * DAY_MS - now) / 1000));
      throw new ApiError(
        503,
        `${this.name}_budget_exhausted`,
        `the ${this.name}'s budget for today (UTC) is spent; it is available again after midnight UTC`,
        { retry_after_secs: retryAfter },
        { "retry-after": String(retryAfter) },
      );
    }
    this.inFlight += amount;
    return { day: utcDay(now), amount };
  }

  /** The work is done: its hold ends, and its actual cost (0 for failed work) joins the day it started on. */
  finish(hold: BudgetHold, cost: number): void {
    this.inFlight -= hold.amount;
    if (cost > 0) this.store.add(hold.day, cost);
  }
}

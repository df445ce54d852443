/**
 * One unit of priced work through the meter: reserve the price, do the work, settle what it
 * cost (with its units and status, so the receipt says what happened), or release the
 * reservation when the work threw. For work whose price is known before it starts (an MCP tool
 * call, an agent's message); work billed by what it used reserves and settles itself.
 */
import type { Logger } from "./log.ts";
import type { Meter, Settlement } from "./meter.ts";
import type { MicroUsd } from "./money.ts";

export interface Metered<T> {
  result: T;
  status: string;
  units: Record<string, unknown>;
}

export interface PricedWork {
  accountId: string;
  keyId: string | null;
  price: MicroUsd;
  /** Usage kind (usage_events.kind, the receipt's kind). */
  kind: string;
  resource: string;
  /** The run the receipt is chained into. */
  runId?: string | null;
}

/** reserve → work → settle; a failed work releases the reservation and rethrows. */
export async function meterWork<T>(meter: Meter, log: Logger, call: PricedWork, work: () => Promise<Metered<T>>): Promise<{ result: T; settlement: Settlement }> {
  const reservation = await meter.reserveGrouped({
    accountId: call.accountId,
    keyId: call.keyId,
    amount: call.price,
    kind: call.kind,
    resource: call.resource,
    runId: call.runId ?? null,
  });
  let done: Metered<T>;
  try {
    done = await work();
  } catch (err) {
    await meter.releaseGrouped(reservation).catch((e: unknown) => log.error("releasing a reservation of failed work failed", { kind: call.kind, error: e instanceof Error ? e.message : String(e) }));
    throw err;
  }
  const settlement = await meter.settleGrouped(reservation, call.price, { units: done.units, status: done.status });
  return { result: done.result, settlement };
}

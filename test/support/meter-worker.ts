/**
 * A separate OS process reserving through the meter, for the concurrency tests:
 * argv = dataDir accountId keyIds(comma-separated, or "-" for none) attempts amount mode [leaseWaitMs].
 *
 * Modes:
 * - "durable": one reservation after another (Meter.reserve), each a durable hold, yielding now
 *   and then so the processes interleave where the money lease lets them.
 * - "grouped": every attempt started at once through reserveGrouped (durable), so this process's
 *   reservations share group commits, and each starts its "work" (a count) the way an inference
 *   call starts its upstream request: inside the reservation's transaction, before the COMMIT.
 * - "hold": every attempt at once through reserveGrouped in memory (the default for
 *   request-scoped work); prints its line, then keeps the process (the lease and the in-memory
 *   holds) alive until killed — its event loop free, so it yields the lease to a process that
 *   asks (its reservations then become durable holds).
 * - "hold-stuck": as "hold", then blocks its event loop until killed: it never yields.
 *
 * Spending needs the money lease (core/money-lease.ts): exclusive to keep reservations in
 * memory, shared for durable ones (waiting up to leaseWaitMs, default 5 s, for an exclusive
 * holder to yield). Prints {"won": [reservations], "refused": {type: count}, "started": n}.
 */
import { loadConfig } from "../../src/open.ts";
import { openContext } from "../../src/open.ts";
import { ApiError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import type { Reservation } from "../../src/core/meter.ts";

const [dataDir, accountId, keyList, attempts, amount, mode, leaseWaitMs] = process.argv.slice(2);
const ctx = openContext(loadConfig({ dataDir }, {}), { log: silentLogger });
if (leaseWaitMs !== undefined) ctx.ledger.lease.waitMs = Number(leaseWaitMs);
const keys = keyList === "-" ? [null] : keyList!.split(",");
const won: Reservation[] = [];
const refused: Record<string, number> = {};
let started = 0;
const count = (err: unknown) => {
  if (!(err instanceof ApiError)) throw err;
  refused[err.type] = (refused[err.type] ?? 0) + 1;
};
const inMemory = mode === "hold" || mode === "hold-stuck";
const input = (i: number) => ({ accountId: accountId!, keyId: keys[i % keys.length]!, amount: Number(amount), kind: "race", durable: !inMemory });
if (mode === "grouped" || inMemory) {
  const tries = Array.from({ length: Number(attempts) }, (_, i) => ctx.meter.reserveGrouped(input(i), () => void started++));
  for (const outcome of await Promise.allSettled(tries)) {
    if (outcome.status === "fulfilled") won.push(outcome.value);
    else count(outcome.reason);
  }
} else {
  for (let i = 0; i < Number(attempts); i++) {
    try {
      won.push(ctx.meter.reserve(input(i)));
    } catch (err) {
      count(err);
    }
    if (i % 3 === 0) await Bun.sleep(0); // let the other processes interleave
  }
}
if (inMemory) {
  console.log(JSON.stringify({ won, refused, started }));
  if (mode === "hold-stuck") {
    await Bun.sleep(10);
    for (;;) Bun.sleepSync(1_000); // the event loop never runs again: no yield
  }
  setInterval(() => {}, 60_000); // alive, holding, until the test kills it
} else {
  ctx.close();
  console.log(JSON.stringify({ won, refused, started }));
}

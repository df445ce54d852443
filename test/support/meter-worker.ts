/**
 * A separate OS process reserving through the meter, for the concurrency tests:
 * argv = dataDir accountId keyIds(comma-separated, or "-" for none) attempts amount [grouped].
 * With "grouped", every attempt is started at once through reserveGrouped, so this process's
 * reservations share group commits while racing the other processes' groups, and each starts
 * its "work" (a count) the way an inference call starts its upstream request: inside the
 * reservation's transaction, before the COMMIT (Meter.reserveGrouped's start).
 * Prints {"won": [reservations], "refused": {type: count}, "started": n}.
 */
import { loadConfig } from "../../src/open.ts";
import { openContext } from "../../src/open.ts";
import { ApiError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import type { Reservation } from "../../src/core/meter.ts";

const [dataDir, accountId, keyList, attempts, amount, mode] = process.argv.slice(2);
const ctx = openContext(loadConfig({ dataDir }, {}), { log: silentLogger });
const keys = keyList === "-" ? [null] : keyList!.split(",");
const won: Reservation[] = [];
const refused: Record<string, number> = {};
let started = 0;
const count = (err: unknown) => {
  if (!(err instanceof ApiError)) throw err;
  refused[err.type] = (refused[err.type] ?? 0) + 1;
};
if (mode === "grouped") {
  const tries = Array.from({ length: Number(attempts) }, (_, i) => ctx.meter.reserveGrouped({ accountId: accountId!, keyId: keys[i % keys.length]!, amount: Number(amount), kind: "race" }, () => void started++));
  for (const outcome of await Promise.allSettled(tries)) {
    if (outcome.status === "fulfilled") won.push(outcome.value);
    else count(outcome.reason);
  }
}
for (let i = 0; mode !== "grouped" && i < Number(attempts); i++) {
  try {
    won.push(ctx.meter.reserve({ accountId: accountId!, keyId: keys[i % keys.length]!, amount: Number(amount), kind: "race" }));
  } catch (err) {
    count(err);
  }
  if (i % 3 === 0) await Bun.sleep(0); // let the other processes interleave
}
ctx.close();
console.log(JSON.stringify({ won, refused, started }));

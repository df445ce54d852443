/**
 * A separate OS process reserving through the meter, for the concurrency tests:
 * argv = dataDir accountId keyIds(comma-separated, or "-" for none) attempts amount.
 * Prints {"won": [reservations], "refused": {type: count}}.
 */
import { loadConfig } from "../../src/config.ts";
import { openContext } from "../../src/context.ts";
import { ApiError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import type { Reservation } from "../../src/core/meter.ts";

const [dataDir, accountId, keyList, attempts, amount] = process.argv.slice(2);
const ctx = openContext(loadConfig({ dataDir }, {}), { log: silentLogger });
const keys = keyList === "-" ? [null] : keyList!.split(",");
const won: Reservation[] = [];
const refused: Record<string, number> = {};
for (let i = 0; i < Number(attempts); i++) {
  try {
    won.push(ctx.meter.reserve({ accountId: accountId!, keyId: keys[i % keys.length]!, amount: Number(amount), kind: "race" }));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    refused[err.type] = (refused[err.type] ?? 0) + 1;
  }
  if (i % 3 === 0) await Bun.sleep(0); // let the other processes interleave
}
ctx.close();
console.log(JSON.stringify({ won, refused }));

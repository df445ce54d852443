/**
 * A separate OS process hammering one account's credit, for the ledger concurrency test:
 * argv = dataDir accountId attempts amount. Prints {"won": [...hold ids], "refused": n}.
 */
import { loadConfig } from "../../src/open.ts";
import { openContext } from "../../src/open.ts";
import { InsufficientCredit } from "../../src/core/ledger.ts";
import { silentLogger } from "../../src/core/log.ts";

const [dataDir, accountId, attempts, amount] = process.argv.slice(2);
const ctx = openContext(loadConfig({ dataDir }, {}), { log: silentLogger });
const won: string[] = [];
let refused = 0;
for (let i = 0; i < Number(attempts); i++) {
  try {
    won.push(ctx.ledger.hold(accountId!, Number(amount), { expiresAt: Date.now() + 60_000, purpose: "race" }).id);
  } catch (err) {
    if (!(err instanceof InsufficientCredit)) throw err;
    refused++;
  }
  if (i % 5 === 0) await Bun.sleep(0); // let the other processes interleave
}
ctx.close();
console.log(JSON.stringify({ won, refused }));

/** The payment facts of a call, the same in the seller's call list, the buyer's receipt and the service_called event. */
import { toChecksumAddress } from "../../core/eip191.ts";
import type { CallRow } from "./store.ts";

export const paymentFacts = (row: CallRow) => ({
  price_micro_usd: row.price_micro_usd,
  amount_micro_usd: row.amount_micro_usd,
  amount_units: row.amount_units,
  chain: row.chain,
  chain_id: row.chain_id,
  tx_hash: row.tx_hash,
  log_index: row.log_index,
  payer: toChecksumAddress(row.payer),
});

/**
 * Signed receipts: minted in every settle's transaction, verified by anyone, shared on opt-in
 * (/v1/receipts/*; `svc receipts …`). Also the receipt signer and its rotation.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { RECEIPT_HEADERS, receiptHeaders, setReceiptHeaders } from "./headers.ts";
export { rotateSigner } from "./signers.ts";
export { type AccountReceiptRow, type AccountReceiptTotals, accountReceiptsAfter, receiptTotalsOf } from "./by-account.ts";
export { countRuns, receiptsOfRun, type RunReceiptRow, type RunTotals, runTotals, runTotalsOf } from "./by-run.ts";
export { type ReceiptCounts, receiptCounts, receiptsAfter, recentlyShared, type SharedReceiptRow, sharedAmong } from "./public-stats.ts";
export { Address, Hex64, Signature, Statement } from "./models.ts";
export { type RecentReceipt, recentReceipts } from "./recent.ts";
export { checkReceipt, decodeReceipt, type ReceiptVerification } from "./verify.ts";
/** One of the account's own receipts by id (another account's answers 404): replay capsules seal from it. */
export { getReceipt, type ReceiptView } from "./service.ts";

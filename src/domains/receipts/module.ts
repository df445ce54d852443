/**
 * Signed receipts: minted in every settle's transaction, verified by anyone, shared on opt-in
 * (/v1/receipts/*; `svc receipts …`). Also the receipt signer and its rotation.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { receiptsGroup } from "./cli.ts";
import { registerReceiptMinting } from "./mint.ts";
import { receiptRoutes } from "./routes.ts";
import { registerSigner } from "./signers.ts";

export const receiptsModule = defineModule({
  name: "receipts",
  wire(ctx) {
    // The signer on record follows the key file, and ctx.signer follows rotations made by other
    // processes (`svc keys rotate-signer` while svc serve runs).
    registerSigner(ctx);
    // Every settle, from any process, mints its receipt in the same transaction.
    registerReceiptMinting(ctx);
  },
  routes: (ctx) => [receiptRoutes(ctx)],
  cli: [receiptsGroup],
});

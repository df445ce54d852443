/**
 * Signed receipts: minted in every settle's transaction, verified by anyone, shared on opt-in
 * (/v1/receipts/*; `svc receipts …`). Also the receipt signer and its rotation.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { secp256k1Implementation, useSecp256k1 } from "../../core/eip191.ts";
import { keccakImplementation, keccakReady } from "../../core/keccak.ts";
import { SigningPool } from "../../core/signing-pool.ts";
import { defineModule } from "../../module.ts";
import { receiptsConfig } from "./config.ts";
import { receiptsGroup } from "./cli.ts";
import { registerReceiptMinting } from "./mint.ts";
import { receiptRoutes } from "./routes.ts";
import { registerSigner } from "./signers.ts";

export const receiptsModule = defineModule({
  name: "receipts",
  config: receiptsConfig,
  wire(ctx) {
    // Which secp256k1 implementation signs in this process (receipts.secp256k1; a configured
    // library that cannot be used stops here, with the reason).
    useSecp256k1(ctx.config.receipts.secp256k1);
    // The signer on record follows the key file, and ctx.signer follows rotations made by other
    // processes (`svc keys rotate-signer` while svc serve runs).
    registerSigner(ctx);
    // Every settle, from any process, mints its receipt in the same transaction.
    registerReceiptMinting(ctx);
  },
  routes: (ctx) => [receiptRoutes(ctx)],
  serve: {
    // Grouped settles sign their receipts on these threads from now on (mint.ts prepareReceipt).
    async start(ctx) {
      const n = ctx.config.receipts.sign_workers;
      if (n > 0) {
        const pool = new SigningPool(n, ctx.config.receipts.secp256k1);
        try {
          await pool.ready();
          ctx.signingPool = pool;
        } catch (err) {
          pool.close();
          ctx.log.warn("receipt signing threads did not start: receipts are signed on the event loop", { error: err instanceof Error ? err.message : String(err) });
        }
      }
      // After the threads signed their probe: the count is the threads that run, not the setting.
      // The hash too: noble's JavaScript keccak (~20 µs more a receipt) means WebAssembly could not run.
      await keccakReady;
      ctx.log.info("receipts are signed with " + secp256k1Implementation(), { signing_threads: ctx.signingPool ? n : 0, keccak: keccakImplementation() });
    },
    stop(ctx) {
      ctx.signingPool?.close();
      ctx.signingPool = undefined;
    },
  },
  cli: [receiptsGroup],
});

/** The receipts area's svc.toml section (receipts.*; docs/receipts.md). */
import { availableParallelism } from "node:os";
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const ReceiptsSection = T.Object(
  {
    /**
     * Threads `svc serve` signs receipts on (src/core/signing-pool.ts); 0 signs on the event loop.
     * The default: one thread per core beyond the event loop's, at most 2 (on 2 CPUs, one thread
     * measured +9–25% metered req/s at concurrency 64 and the same latency at 1; bench/README.md).
     */
    sign_workers: T.Integer({ minimum: 0, maximum: 16 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    receipts: Static<typeof ReceiptsSection>;
  }
}

export const receiptsConfig: ConfigPart = {
  sections: { receipts: { schema: ReceiptsSection, default: { sign_workers: Math.max(0, Math.min(2, availableParallelism() - 1)) } } },
  env: [{ name: "SVC_SIGN_WORKERS", path: "receipts.sign_workers", type: "integer" }],
};

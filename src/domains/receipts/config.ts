/** The receipts area's svc.toml section (receipts.*; docs/receipts.md). */
import { availableParallelism } from "node:os";
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const ReceiptsSection = T.Object(
  {
    /**
     * Threads `svc serve` signs receipts on (src/core/signing-pool.ts); 0 signs on the event loop.
     * The default leaves the event loop and the machine's other work a core each: none on 2 cores
     * (measured there: a thread hop costs a call more latency than it saves; bench/README.md),
     * one per core beyond the second, at most 2.
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
  sections: { receipts: { schema: ReceiptsSection, default: { sign_workers: Math.max(0, Math.min(2, availableParallelism() - 2)) } } },
  env: [{ name: "SVC_SIGN_WORKERS", path: "receipts.sign_workers", type: "integer" }],
};

/** The receipts area's svc.toml section (receipts.*; docs/receipts.md). */
import { availableParallelism } from "node:os";
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const ReceiptsSection = T.Object(
  {
    /**
     * Threads `svc serve` signs receipts on (src/core/signing-pool.ts); 0 signs on the event loop.
     * The default: one thread per core beyond the event loop's, at most 2. On 2 CPUs one thread
     * measured +9–25% metered req/s at concurrency 64 with noble, and still +6–12% with
     * libsecp256k1, whose signature is cheap but whose keccak and hex still cost the loop
     * (bench/README.md).
     */
    sign_workers: T.Integer({ minimum: 0, maximum: 16 }),
    /**
     * What signs (src/core/secp256k1-native.ts): "auto" — the system's libsecp256k1 when it
     * loads and signs exactly as noble does, else @noble/secp256k1; "js" — always noble; or the
     * path of a libsecp256k1 shared library (an error at startup when it cannot be used).
     */
    secp256k1: T.Union([T.Literal("auto"), T.Literal("js"), T.String({ pattern: "^/", description: "an absolute path to libsecp256k1.so" })]),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    receipts: Static<typeof ReceiptsSection>;
  }
}

export const receiptsConfig: ConfigPart = {
  sections: { receipts: { schema: ReceiptsSection, default: { sign_workers: Math.max(0, Math.min(2, availableParallelism() - 1)), secp256k1: "auto" } } },
  env: [
    { name: "SVC_SIGN_WORKERS", path: "receipts.sign_workers", type: "integer" },
    { name: "SVC_SECP256K1", path: "receipts.secp256k1", type: "string" },
  ],
};

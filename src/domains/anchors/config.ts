/** Receipt batches and run proofs: their Merkle roots and where they are anchored (anchors.*; docs/receipts.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import { type Config, ConfigError, type ConfigPart } from "../../config.ts";

export const AnchorsSection = T.Object(
  {
    /** The memo an anchor carries is `<memo_prefix>:v1:<root>`. */
    memo_prefix: T.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$" }),
    /** How often new receipts are gathered into one batch root and anchored. */
    batch_interval_secs: T.Integer({ minimum: 60, maximum: 7 * 86_400 }),
    evm: T.Object(
      {
        /** A chain name from chains[] to anchor roots on (a transaction per root); empty = off. */
        chain: T.String(),
        /** Blocks a root's transaction needs to count as anchored; absent: the chain's `confirmations`. */
        confirmations: T.Optional(T.Integer({ minimum: 1, maximum: 10_000 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    anchors: Static<typeof AnchorsSection>;
  }
}

export const anchorsConfig: ConfigPart = {
  sections: { anchors: { schema: AnchorsSection, default: { memo_prefix: "svc", batch_interval_secs: 3600, evm: { chain: "" } } } },
  check(config: Config) {
    const names = config.chains.map((c) => c.name);
    const chain = config.anchors.evm.chain;
    if (chain && !names.includes(chain)) throw new ConfigError(`anchors.evm.chain: "${chain}" is not a configured chain (chains: ${names.join(", ") || "none"})`);
  },
};

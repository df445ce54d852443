/**
 * Billing's svc.toml sections: enforcement and the treasury, the EVM chains deposits are
 * accepted on (svc chains add|list|remove), and the plan catalogue (GET /v1/billing/plans).
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { MicroUsd } from "../../core/schemas.ts";
import { type Config, ConfigError, type ConfigPart } from "../../config.ts";

export const BillingSection = T.Object(
  {
    enforced: T.Boolean(),
    /** Where USDT deposits and x402 payments go; empty = deposits and payments off. */
    treasury: T.String(),
    /** Deployment default balance_low threshold (an account may set its own). */
    balance_low_micro_usd: MicroUsd(),
  },
  { additionalProperties: false },
);

export const ChainSchema = T.Object(
  {
    name: T.String({ pattern: "^[a-z0-9][a-z0-9-]{0,31}$" }),
    chain_id: T.Integer({ minimum: 1 }),
    rpc_url: T.String({ pattern: "^https?://" }),
    usdt: T.String({ pattern: "^0x[0-9a-fA-F]{40}$" }),
    decimals: T.Integer({ minimum: 0, maximum: 36 }),
    confirmations: T.Integer({ minimum: 1, maximum: 10_000 }),
    explorer_url: T.Optional(T.String({ pattern: "^https?://" })),
  },
  { additionalProperties: false },
);

/** EVM chains deposits are accepted on (svc chains add|list|remove). */
export const ChainsSection = T.Array(ChainSchema);

/** The plan catalogue (GET /v1/billing/plans). */
export const PlansSection = T.Array(
  T.Object(
    {
      id: T.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,31}$" }),
      name: T.String({ minLength: 1 }),
      monthly_fee_micro_usd: MicroUsd(),
      retention_days: T.Integer({ minimum: 1 }),
      limits: T.Record(T.String(), T.Integer({ minimum: 0 })),
      features: T.Array(T.String()),
    },
    { additionalProperties: false },
  ),
  { minItems: 1 },
);

declare module "../../config.ts" {
  interface DomainConfig {
    billing: Static<typeof BillingSection>;
    chains: Static<typeof ChainsSection>;
    plans: Static<typeof PlansSection>;
  }
}

export const billingConfig: ConfigPart = {
  sections: {
    billing: { schema: BillingSection, default: { enforced: true, treasury: "", balance_low_micro_usd: 5_000_000 } },
    chains: { schema: ChainsSection, default: [] },
    plans: {
      schema: PlansSection,
      default: [{ id: "free", name: "Free", monthly_fee_micro_usd: 0, retention_days: 30, limits: {}, features: [] }],
    },
  },
  env: [
    { name: "SVC_TREASURY", path: "billing.treasury", type: "string" },
    { name: "SVC_BILLING_ENFORCED", path: "billing.enforced", type: "boolean" },
  ],
  check(config: Config) {
    if (config.billing.treasury && !/^0x[0-9a-fA-F]{40}$/.test(config.billing.treasury)) throw new ConfigError(`billing.treasury: "${config.billing.treasury}" is not a 0x address`);
    const names = config.chains.map((c) => c.name);
    if (new Set(names).size !== names.length) throw new ConfigError("chains: two chains have the same name");
  },
};

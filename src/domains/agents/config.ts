/** The hosted-agents area's svc.toml section (agents.*; docs/agents.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import { ConfigError, type ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const AgentsSection = T.Object(
  {
    /** max_steps when an agent names none: model turns per run. */
    default_max_steps: T.Integer({ minimum: 1, maximum: 100 }),
    /** The most model turns any agent may ask for. */
    max_steps_limit: T.Integer({ minimum: 1, maximum: 1000 }),
    /** The longest one run may take (seconds); it then fails with run_timeout, and what it used is billed. Below scheduler.lease_secs. */
    run_timeout_secs: T.Integer({ minimum: 5, maximum: 3600 }),
    /** The largest body POST /v1/agents/:id/hooks/:token takes (413 beyond). */
    hook_max_body_bytes: T.Integer({ minimum: 1024, maximum: 10 * 1024 * 1024 }),
    /** Sustained hook calls per minute per token, and the burst allowed at once; 0 per minute: no limit. */
    hook_per_minute: T.Integer({ minimum: 0, maximum: 1_000_000 }),
    hook_burst: T.Integer({ minimum: 1, maximum: 1_000_000 }),
    /** Messages an agent's mailbox may hold unread before senders get 429 mailbox_full. */
    mailbox_max_unread: T.Integer({ minimum: 1, maximum: 1_000_000 }),
    /** What an agent's send_message tool call costs (0: a receipt, no charge). */
    message_price_micro_usd: MicroUsd(),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    agents: Static<typeof AgentsSection>;
  }
}

export const agentsConfig: ConfigPart = {
  sections: {
    agents: {
      schema: AgentsSection,
      default: {
        default_max_steps: 8,
        max_steps_limit: 50,
        run_timeout_secs: 240,
        hook_max_body_bytes: 256 * 1024,
        hook_per_minute: 60,
        hook_burst: 20,
        mailbox_max_unread: 1000,
        message_price_micro_usd: 0,
      },
    },
  },
  env: [],
  check(config) {
    // A run is one scheduler job: one that outlived its lease would be claimed a second time while still running.
    if (config.agents.run_timeout_secs >= config.scheduler.lease_secs) {
      throw new ConfigError(`agents.run_timeout_secs (${config.agents.run_timeout_secs}) must be below scheduler.lease_secs (${config.scheduler.lease_secs})`);
    }
  },
};

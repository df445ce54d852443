/** The batches area's svc.toml section (batches.*; docs/batches.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const BatchesSection = T.Object(
  {
    /** Lines in flight at once across every batch (each is one upstream call). */
    concurrency: T.Integer({ minimum: 1, maximum: 1024 }),
    /** Lines in flight at once within one batch. */
    line_concurrency: T.Integer({ minimum: 1, maximum: 1024 }),
    /** Batches one account may have running (not yet ended); one more is 409 batch_limit_reached. */
    max_active_per_account: T.Integer({ minimum: 1, maximum: 10_000 }),
    /** Tries per line when the upstream fails with a retryable error (timeout, 429, 5xx) after fallback; only the try that answers is billed. */
    line_attempts: T.Integer({ minimum: 1, maximum: 10 }),
    /** First wait before a retry (milliseconds); doubles per try. */
    retry_backoff_ms: T.Integer({ minimum: 0, maximum: 600_000 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    batches: Static<typeof BatchesSection>;
  }
}

export const batchesConfig: ConfigPart = {
  sections: {
    batches: {
      schema: BatchesSection,
      default: { concurrency: 16, line_concurrency: 8, max_active_per_account: 10, line_attempts: 3, retry_backoff_ms: 1000 },
    },
  },
  env: [],
};

/** The files area's svc.toml section (files.*; docs/batches.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import { ConfigError, type ConfigPart } from "../../config.ts";

const DAY_SECS = 86_400;

export const FilesSection = T.Object(
  {
    /** The largest upload POST /v1/files takes (413 beyond). Buffered whole while it is checked. */
    max_bytes: T.Integer({ minimum: 1024, maximum: 1 << 30 }),
    /** The most JSONL lines one file may hold. */
    max_lines: T.Integer({ minimum: 1, maximum: 1_000_000 }),
    /** How long an uploaded file lives (seconds) unless the upload asks for less (expires_after); then it is purged. */
    ttl_secs: T.Integer({ minimum: 3600, maximum: 365 * DAY_SECS }),
    /** How long a batch's output and error files live after the batch ends (seconds). */
    output_ttl_secs: T.Integer({ minimum: 3600, maximum: 365 * DAY_SECS }),
    /** Bytes of live files one account may hold (uploads and outputs); an upload past it is 409 file_storage_full. */
    max_stored_bytes_per_account: T.Integer({ minimum: 1024, maximum: Number.MAX_SAFE_INTEGER }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    files: Static<typeof FilesSection>;
  }
}

export const filesConfig: ConfigPart = {
  sections: {
    files: {
      schema: FilesSection,
      default: {
        max_bytes: 50 * 1024 * 1024,
        max_lines: 50_000,
        ttl_secs: 7 * DAY_SECS,
        output_ttl_secs: 7 * DAY_SECS,
        max_stored_bytes_per_account: 1024 * 1024 * 1024,
      },
    },
  },
  env: [{ name: "SVC_FILES_MAX_BYTES", path: "files.max_bytes", type: "integer" }],
  check(config) {
    if (config.files.max_bytes > config.files.max_stored_bytes_per_account) {
      throw new ConfigError(`files.max_bytes (${config.files.max_bytes}) must not exceed files.max_stored_bytes_per_account (${config.files.max_stored_bytes_per_account})`);
    }
  },
};

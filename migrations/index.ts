/**
 * The migrations, embedded into the binary at build time (text imports), so `dist/svc` needs
 * no migrations directory. Append new files here in order; test/migrations.test.ts fails when
 * this list and the directory disagree.
 */
import m0001 from "./0001_core.sql" with { type: "text" };
import m0002 from "./0002_auth.sql" with { type: "text" };
import m0003 from "./0003_passkeys.sql" with { type: "text" };
import m0004 from "./0004_orgs.sql" with { type: "text" };
import m0005 from "./0005_keys.sql" with { type: "text" };
import m0006 from "./0006_mandates_ghosts.sql" with { type: "text" };
import m0007 from "./0007_deposits.sql" with { type: "text" };
import m0008 from "./0008_request_stats.sql" with { type: "text" };
import m0009 from "./0009_plans_alerts.sql" with { type: "text" };
import m0010 from "./0010_receipts.sql" with { type: "text" };
import m0011 from "./0011_signers.sql" with { type: "text" };
import m0012 from "./0012_runs_anchors.sql" with { type: "text" };
import m0013 from "./0013_webhooks.sql" with { type: "text" };
import m0014 from "./0014_inference.sql" with { type: "text" };

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  { version: 1, name: "0001_core", sql: m0001 },
  { version: 2, name: "0002_auth", sql: m0002 },
  { version: 3, name: "0003_passkeys", sql: m0003 },
  { version: 4, name: "0004_orgs", sql: m0004 },
  { version: 5, name: "0005_keys", sql: m0005 },
  { version: 6, name: "0006_mandates_ghosts", sql: m0006 },
  { version: 7, name: "0007_deposits", sql: m0007 },
  { version: 8, name: "0008_request_stats", sql: m0008 },
  { version: 9, name: "0009_plans_alerts", sql: m0009 },
  { version: 10, name: "0010_receipts", sql: m0010 },
  { version: 11, name: "0011_signers", sql: m0011 },
  { version: 12, name: "0012_runs_anchors", sql: m0012 },
  { version: 13, name: "0013_webhooks", sql: m0013 },
  { version: 14, name: "0014_inference", sql: m0014 },
];

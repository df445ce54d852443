/**
 * Every product area, once, in order. The app mounts their routes in this order, `svc serve`
 * registers their jobs and starts their serve hooks in it (stopping in reverse), the config
 * loader gathers their sections, the CLI lists their commands, and every context runs their
 * wire() in it. Adding an area: a folder with an index.ts exporting its module, and one line here.
 *
 * Order that matters: backup first (replication starts before the server listens and stops
 * last); billing's balance listener and receipts' minting hook are wired before anything settles.
 */
import type { AreaModule } from "../module.ts";
import { accountsModule } from "./accounts/index.ts";
import { adminModule } from "./admin/index.ts";
import { anchorsModule } from "./anchors/index.ts";
import { authModule } from "./auth/index.ts";
import { backupModule } from "./backup/index.ts";
import { billingModule } from "./billing/index.ts";
import { creditModule } from "./credit/index.ts";
import { explorerModule } from "./explorer/index.ts";
import { ghostsModule } from "./ghosts/index.ts";
import { inferenceModule } from "./inference/index.ts";
import { keysModule } from "./keys/index.ts";
import { mandatesModule } from "./mandates/index.ts";
import { metricsModule } from "./metrics/index.ts";
import { orgsModule } from "./orgs/index.ts";
import { receiptsModule } from "./receipts/index.ts";
import { reportsModule } from "./reports/index.ts";
import { runsModule } from "./runs/index.ts";
import { statusModule } from "./status/index.ts";
import { usageModule } from "./usage/index.ts";
import { webhooksModule } from "./webhooks/index.ts";

export const modules: readonly AreaModule[] = [
  backupModule,
  statusModule,
  accountsModule,
  authModule,
  orgsModule,
  keysModule,
  creditModule,
  billingModule,
  mandatesModule,
  ghostsModule,
  usageModule,
  reportsModule,
  runsModule,
  anchorsModule,
  explorerModule,
  receiptsModule,
  webhooksModule,
  inferenceModule,
  adminModule,
  metricsModule,
];

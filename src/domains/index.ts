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
import { accountsModule } from "./accounts/module.ts";
import { adminModule } from "./admin/module.ts";
import { agentsModule } from "./agents/module.ts";
import { anchorsModule } from "./anchors/module.ts";
import { authModule } from "./auth/module.ts";
import { autopilotModule } from "./autopilot/module.ts";
import { backupModule } from "./backup/module.ts";
import { batchesModule } from "./batches/module.ts";
import { billingModule } from "./billing/module.ts";
import { consoleModule } from "./console/module.ts";
import { creditModule } from "./credit/module.ts";
import { evalsModule } from "./evals/module.ts";
import { explorerModule } from "./explorer/module.ts";
import { filesModule } from "./files/module.ts";
import { ghostsModule } from "./ghosts/module.ts";
import { guardrailsModule } from "./guardrails/module.ts";
import { inferenceModule } from "./inference/module.ts";
import { judgeModule } from "./judge/module.ts";
import { keysModule } from "./keys/module.ts";
import { mandatesModule } from "./mandates/module.ts";
import { mcpModule } from "./mcp/module.ts";
import { mediaModule } from "./media/module.ts";
import { arenaModule } from "./arena/module.ts";
import { evidenceModule } from "./evidence/module.ts";
import { attestationsModule } from "./attestations/module.ts";
import { navModule } from "./nav/module.ts";
import { benchmarksModule } from "./benchmarks/module.ts";
import { pobModule } from "./pob/module.ts";
import { confidentialModule } from "./confidential/module.ts";
import { servicesModule } from "./services/module.ts";
import { supportModule } from "./support/module.ts";
import { legacyModule } from "./legacy/module.ts";
import { vaultModule } from "./vault/module.ts";
import { launchesModule } from "./launches/module.ts";
import { engineModule } from "./engine/module.ts";
import { replayModule } from "./replay/module.ts";
import { sourcesModule } from "./sources/module.ts";
import { kyaModule } from "./kya/module.ts";
import { passportModule } from "./passport/module.ts";
import { escrowModule } from "./escrow/module.ts";
import { payModule } from "./pay/module.ts";
import { relaysModule } from "./relays/module.ts";
import { notaryModule } from "./notary/module.ts";
import { callsModule } from "./calls/module.ts";
import { postModule } from "./post/module.ts";
import { memoryModule } from "./memory/module.ts";
import { metricsModule } from "./metrics/module.ts";
import { nodesModule } from "./nodes/module.ts";
import { oauthModule } from "./oauth/module.ts";
import { orgsModule } from "./orgs/module.ts";
import { receiptsModule } from "./receipts/module.ts";
import { reportsModule } from "./reports/module.ts";
import { runsModule } from "./runs/module.ts";
import { sandboxesModule } from "./sandboxes/module.ts";
import { stateModule } from "./state/module.ts";
import { statusModule } from "./status/module.ts";
import { usageModule } from "./usage/module.ts";
import { webhooksModule } from "./webhooks/module.ts";

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
  guardrailsModule,
  evalsModule,
  judgeModule,
  autopilotModule,
  mediaModule,
  postModule,
  callsModule,
  notaryModule,
  relaysModule,
  payModule,
  escrowModule,
  passportModule,
  kyaModule,
  sourcesModule,
  replayModule,
  engineModule,
  arenaModule,
  evidenceModule,
  attestationsModule,
  navModule,
  benchmarksModule,
  pobModule,
  confidentialModule,
  servicesModule,
  supportModule,
  legacyModule,
  vaultModule,
  launchesModule,
  filesModule,
  batchesModule,
  sandboxesModule,
  nodesModule,
  stateModule,
  memoryModule,
  oauthModule,
  mcpModule,
  agentsModule,
  adminModule,
  metricsModule,
  consoleModule,
];

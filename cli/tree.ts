/** The command tree: every `svc …` command, by group. */
import { accountsGroup } from "./accounts.ts";
import { adminGroup } from "./admin.ts";
import { anchorsGroup } from "./anchors.ts";
import { backupGroup } from "./backup.ts";
import { chainsGroup } from "./chains.ts";
import type { Group } from "./command.ts";
import { doctorCommand } from "./doctor.ts";
import { keysGroup } from "./keys.ts";
import { migrateCommand } from "./migrate.ts";
import { modelsGroup } from "./models.ts";
import { providersGroup } from "./providers.ts";
import { receiptsGroup } from "./receipts.ts";
import { restoreCommand } from "./restore.ts";
import { serveCommand } from "./serve.ts";
import { setupCommand } from "./setup.ts";
import { versionCommand } from "./version.ts";
import { webhooksGroup } from "./webhooks.ts";

export const commandTree: Group = {
  name: "",
  summary: "svc: a self-hosted gateway for autonomous software agents",
  commands: [setupCommand, serveCommand, migrateCommand, doctorCommand, backupGroup, restoreCommand, versionCommand, accountsGroup, keysGroup, receiptsGroup, anchorsGroup, chainsGroup, providersGroup, modelsGroup, webhooksGroup, adminGroup],
};

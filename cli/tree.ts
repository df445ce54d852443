/** The command tree: the appliance's own commands, then each area's (src/domains/index.ts). */
import type { Group } from "../src/cli/command.ts";
import { modules } from "../src/domains/index.ts";
import { doctorCommand } from "./doctor.ts";
import { migrateCommand } from "./migrate.ts";
import { serveCommand } from "./serve.ts";
import { setupCommand } from "./setup.ts";
import { versionCommand } from "./version.ts";

export const commandTree: Group = {
  name: "",
  summary: "svc: a self-hosted gateway for autonomous software agents",
  commands: [setupCommand, serveCommand, migrateCommand, doctorCommand, versionCommand, ...modules.flatMap((m) => m.cli ?? [])],
};

#!/usr/bin/env bun
/**
 * svc: the gateway's one executable. `bun build --compile` turns this file into dist/svc.
 * Each command group lives in its own file; they call the same services as the HTTP routes.
 */
import { adminGroup } from "./admin.ts";
import { dispatch, type Group } from "./command.ts";
import { doctorCommand } from "./doctor.ts";
import { migrateCommand } from "./migrate.ts";
import { serveCommand } from "./serve.ts";
import { setupCommand } from "./setup.ts";
import { versionCommand } from "./version.ts";

const root: Group = {
  name: "",
  summary: "svc: a self-hosted gateway for autonomous software agents",
  commands: [setupCommand, serveCommand, migrateCommand, doctorCommand, versionCommand, adminGroup],
};

const argv = process.argv.slice(2);
const code = argv[0] === "--version" || argv[0] === "-V" ? await dispatch(root, ["version"]) : await dispatch(root, argv);
process.exit(code);

#!/usr/bin/env bun
/**
 * svc: the gateway's one executable. `bun build --compile` turns this file into dist/svc.
 * The appliance's own commands live here; each area's are in its folder (src/domains/<area>/cli*.ts)
 * and reach the tree through its module (cli/tree.ts). They call the same services as the HTTP routes.
 */
import { dispatch } from "../src/cli/command.ts";
import { cliHost } from "../src/cli/host.ts";
import { commandTree } from "./tree.ts";

const argv = process.argv.slice(2);
process.exit(await dispatch(commandTree, argv[0] === "--version" || argv[0] === "-V" ? ["version"] : argv, cliHost));

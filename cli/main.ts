#!/usr/bin/env bun
/**
 * svc: the gateway's one executable. `bun build --compile` turns this file into dist/svc.
 * Commands live one group per file (cli/tree.ts lists them); they call the same services as
 * the HTTP routes.
 */
import { dispatch } from "./command.ts";
import { commandTree } from "./tree.ts";

const argv = process.argv.slice(2);
process.exit(await dispatch(commandTree, argv[0] === "--version" || argv[0] === "-V" ? ["version"] : argv));

/** The command line once the process is settled (cli/main.ts may have started it over first). */
import { dispatch } from "../src/cli/command.ts";
import { cliHost } from "../src/cli/host.ts";
import { commandTree } from "./tree.ts";

export function runCli(argv: string[]): Promise<number> {
  return dispatch(commandTree, argv[0] === "--version" || argv[0] === "-V" ? ["version"] : argv, cliHost);
}

/** svc version */
import { NAME, VERSION } from "../src/version.ts";
import type { Command } from "../src/cli/command.ts";

export const versionCommand: Command = {
  name: "version",
  summary: "Print the version",
  run() {
    console.log(`${NAME} ${VERSION} (bun ${Bun.version}, ${process.platform}-${process.arch})`);
  },
};

/**
 * `svc …` run in-process through the CLI tree (no binary, no build), capturing what it prints:
 * for tests of commands whose output matters more than the process around them.
 */
import { spyOn } from "bun:test";
import { commandTree } from "../../cli/tree.ts";
import { dispatch } from "../../src/cli/command.ts";
import { cliHost } from "../../src/cli/host.ts";

export async function svcInProcess(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const error = spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    const code = await dispatch(commandTree, argv, cliHost);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** Opening the configured data dir from a command's --config / --data-dir flags: the CommandHost of every command. */
import { existsSync } from "node:fs";
import { type Config, paths } from "../config.ts";
import { loadConfig } from "../open.ts";
import { type Context, openContext } from "../open.ts";
import { createLogger } from "../core/log.ts";
import { CommandFailed, type CommandHost, type Parsed, str } from "./command.ts";

export function configFrom(values: Parsed["values"], extra: { listen?: string } = {}): Config {
  return loadConfig({ config: str(values.config), dataDir: str(values["data-dir"]), listen: extra.listen });
}

/**
 * The context for a command: fails with a hint when `svc setup` has not run there. One-shot
 * commands log only warnings unless the config asks for debug; `serve` uses the configured level.
 */
export function openFrom(values: Parsed["values"], options: { useConfiguredLogLevel?: boolean } = {}): Context {
  const config = configFrom(values);
  const p = paths(config);
  if (!existsSync(p.masterKey)) {
    throw new CommandFailed(`no svc data in ${config.data_dir} (no master key); run 'svc setup' first, or pass --data-dir / --config`);
  }
  const level = options.useConfiguredLogLevel ? config.log_level : config.log_level === "debug" ? "debug" : "warn";
  return openContext(config, { log: createLogger(level) });
}

/** Runs `fn` with an open context and closes it whatever happens. */
export async function withContext<T>(values: Parsed["values"], fn: (ctx: Context) => T | Promise<T>): Promise<T> {
  const ctx = openFrom(values);
  try {
    return await fn(ctx);
  } finally {
    ctx.close();
  }
}

/** The host every command gets (cli/main.ts and tests dispatch with it). */
export const cliHost: CommandHost = { configFrom, openFrom, withContext };

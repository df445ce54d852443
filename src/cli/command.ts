/**
 * The CLI's small command framework: each command declares its usage and options, gets
 * `--help` for free, and maps outcomes to exit codes: 0 ok, 1 failure, 2 usage error.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { type Config, ConfigError } from "../config.ts";
import type { Context } from "../context.ts";
import { ApiError } from "../core/errors.ts";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}
/** A failure already explained to the user (message printed as is, exit 1). */
export class CommandFailed extends Error {}

export interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  short?: string;
  multiple?: boolean;
  /** Placeholder in help, e.g. DIR. */
  value?: string;
}

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * What a command may open, handed to run() by the dispatcher (src/cli/host.ts), so that an
 * area's commands never import the composition root that imports every area.
 */
export interface CommandHost {
  /** The configuration the command's --config / --data-dir (and an optional listen override) select. */
  configFrom(values: Parsed["values"], extra?: { listen?: string }): Config;
  /** A context on that data dir; fails with a hint when `svc setup` has not run there. */
  openFrom(values: Parsed["values"], options?: { useConfiguredLogLevel?: boolean }): Context;
  /** Runs `fn` with an open context and closes it whatever happens. */
  withContext<T>(values: Parsed["values"], fn: (ctx: Context) => T | Promise<T>): Promise<T>;
}

export interface Command {
  /** Words after `svc`, e.g. "admin denylist add". */
  name: string;
  summary: string;
  /** Positional part of the usage line, e.g. "SHA256". */
  args?: string;
  positionals?: { min: number; max: number };
  options?: Record<string, OptionSpec>;
  /** Extra paragraphs for --help. */
  details?: string;
  run(parsed: Parsed, host: CommandHost): Promise<number | void> | number | void;
}

export interface Group {
  name: string;
  summary: string;
  commands: (Command | Group)[];
}

export const isGroup = (c: Command | Group): c is Group => "commands" in c;

/** Options most data commands share: where the config and data are. */
export const locationOptions: Record<string, OptionSpec> = {
  config: { type: "string", value: "PATH", description: "svc.toml to use (default: $SVC_CONFIG, else <data dir>/svc.toml)" },
  "data-dir": { type: "string", value: "DIR", description: "data directory (default: $SVC_DATA_DIR, else ./data)" },
};

/** --account ACCOUNT_ID, for the commands that act on one account. */
export const accountOption: OptionSpec = { type: "string", value: "ACCOUNT_ID", description: "the account (required)" };

/** The --account value, or a usage error saying it is required. */
export function requireAccount(values: Parsed["values"]): string {
  const id = str(values.account);
  if (!id) throw new UsageError("--account ACCOUNT_ID is required");
  return id;
}

export function helpFor(cmd: Command): string {
  const lines = [`${cmd.summary}`, "", `Usage: svc ${cmd.name}${cmd.args ? " " + cmd.args : ""}${cmd.options ? " [options]" : ""}`];
  const opts = { ...cmd.options, help: { type: "boolean", description: "show this help", short: "h" } as OptionSpec };
  lines.push("", "Options:");
  const rows = Object.entries(opts).map(([name, o]) => [`${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`, o.description]);
  const width = Math.max(...rows.map(([l]) => l!.length));
  for (const [l, d] of rows) lines.push(`  ${l!.padEnd(width)}  ${d}`);
  if (cmd.details) lines.push("", cmd.details.trim());
  return lines.join("\n");
}

export function helpForGroup(group: Group): string {
  const lines = [group.summary, "", `Usage: svc ${group.name ? group.name + " " : ""}<command> [options]`, "", "Commands:"];
  const rows = group.commands.map((c) => [c.name.split(" ").at(-1)!, c.summary]);
  const width = Math.max(...rows.map(([n]) => n!.length));
  for (const [n, s] of rows) lines.push(`  ${n!.padEnd(width)}  ${s}`);
  lines.push("", `Run 'svc ${group.name ? group.name + " " : ""}<command> --help' for a command's options.`);
  return lines.join("\n");
}

export function parse(cmd: Command, argv: string[]): Parsed | "help" {
  const options: ParseArgsConfig["options"] = { help: { type: "boolean", short: "h" } };
  for (const [name, o] of Object.entries(cmd.options ?? {})) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (parsed.values.help) return "help";
  const { min, max } = cmd.positionals ?? { min: 0, max: 0 };
  const n = parsed.positionals.length;
  if (n < min) throw new UsageError(`missing argument${cmd.args ? `: expected ${cmd.args}` : ""}`);
  if (n > max) throw new UsageError(`unexpected argument "${parsed.positionals[max]}"`);
  return { values: parsed.values as Parsed["values"], positionals: parsed.positionals };
}

export async function runCommand(cmd: Command, argv: string[], host: CommandHost): Promise<number> {
  try {
    const parsed = parse(cmd, argv);
    if (parsed === "help") {
      console.log(helpFor(cmd));
      return EXIT_OK;
    }
    return (await cmd.run(parsed, host)) ?? EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`svc ${cmd.name}: ${err.message}\nRun 'svc ${cmd.name} --help' for usage.`);
      return EXIT_USAGE;
    }
    if (err instanceof CommandFailed || err instanceof ConfigError) {
      console.error(`svc ${cmd.name}: ${err.message}`);
      return EXIT_FAILURE;
    }
    if (err instanceof ApiError) {
      console.error(`svc ${cmd.name}: ${err.message}`);
      return err.status === 400 ? EXIT_USAGE : EXIT_FAILURE;
    }
    console.error(`svc ${cmd.name}: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT_FAILURE;
  }
}

/** Finds the command for argv in the tree and runs it. */
export async function dispatch(root: Group, argv: string[], host: CommandHost): Promise<number> {
  let node: Command | Group = root;
  let i = 0;
  while (isGroup(node)) {
    const word = argv[i];
    if (word === undefined) {
      console.error(helpForGroup(node));
      return EXIT_USAGE;
    }
    if (word === "--help" || word === "-h" || word === "help") {
      console.log(helpForGroup(node));
      return EXIT_OK;
    }
    const next: Command | Group | undefined = node.commands.find((c) => c.name.split(" ").at(-1) === word);
    if (!next) {
      console.error(`svc${node.name ? " " + node.name : ""}: unknown command "${word}"\n\n${helpForGroup(node)}`);
      return EXIT_USAGE;
    }
    node = next;
    i++;
  }
  return runCommand(node, argv.slice(i), host);
}

export const str = (v: Parsed["values"][string]): string | undefined => (typeof v === "string" ? v : undefined);

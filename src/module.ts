/**
 * The area module: what one product area (src/domains/<area>/) contributes to the process, in
 * one object exported by the area's index.ts — its only front door. src/domains/index.ts lists
 * the modules once, in order; the app (routes), the scheduler (jobs), the config loader
 * (sections), `svc serve` (start/stop) and the CLI tree iterate that list, so adding an area
 * is a new folder and one line there. docs/architecture.md states the contract.
 */
import type { AnyElysia } from "elysia";
import type { Command, Group } from "./cli/command.ts";
import type { Config, ConfigPart } from "./config.ts";
import type { Context } from "./context.ts";
import type { SqliteExtension } from "./core/db.ts";

export interface AreaModule {
  /** The area's folder name under src/domains/. */
  name: string;
  /**
   * Whether this configuration turns the area on (default: on). Off: its reactions, routes,
   * jobs and `svc serve` hooks are not installed (its routes answer 404 and leave the OpenAPI
   * document); its config section and CLI commands stay, so an operator can turn it on.
   */
  enabled?(config: Config): boolean;
  /** svc.toml sections the area owns: schemas, defaults, SVC_* variables, cross-field rules. */
  config?: ConfigPart;
  /**
   * SQLite extensions the area's tables need (sqlite-vec for memory), loaded on every context's
   * connection before migrations run (src/open.ts hands them to createContext).
   */
  sqliteExtensions?(config: Config): SqliteExtension[];
  /**
   * Reactions every context needs, wherever it is opened (`svc serve`, a CLI command, a test):
   * listeners on the ledger, meter hooks, per-context state the area adds to Context. Runs
   * once, right after the core services open, in list order.
   */
  wire?(ctx: Context): void;
  /**
   * Route groups, mounted in list order. A group the area leaves out (its credential or
   * feature not configured) is unmounted: 404, and absent from the OpenAPI document.
   */
  routes?(ctx: Context): AnyElysia[];
  /**
   * Request bodies larger than max_body_bytes that some of the area's routes take, by
   * "METHOD /path" (exact path): file uploads. Every other route keeps the global limit.
   */
  bodyLimits?(ctx: Context): Record<string, number>;
  /** Job handlers and recurring jobs; `svc serve` registers them before the scheduler starts. */
  jobs?(ctx: Context): void;
  /** `svc serve` only: start runs before the server listens (list order), stop after the scheduler has stopped (reverse order). */
  serve?: {
    start?(ctx: Context): Promise<void> | void;
    stop?(ctx: Context): Promise<void> | void;
  };
  /** `svc …` command groups and commands the area adds to the CLI tree. */
  cli?: (Command | Group)[];
}

/** Identity, for type-checked module literals. */
export const defineModule = (module: AreaModule): AreaModule => module;

/** Modules this configuration turns on. */
export const enabledModules = (modules: readonly AreaModule[], config: Config): AreaModule[] => modules.filter((m) => m.enabled?.(config) ?? true);

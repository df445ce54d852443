/**
 * Opening the product with all its areas: the configuration (the loader of config.ts given
 * every area's sections) and a context (the core services of context.ts, then every area's
 * wire() in the order of src/domains/index.ts — the ledger listeners, meter hooks and
 * per-context state that every process touching the database needs: `svc serve`, CLI commands
 * and tests, since a balance can fall and a settle can happen in any of them).
 *
 * A composition root: entry points (cli/, tests, benches) import it; area code never does (it
 * gets a context handed in), so the area modules form no import cycle through it.
 */
import type { TObject } from "@sinclair/typebox";
import { type Config, type ConfigFlags, type ConfigPart, configSchemaOf, defaultsOf, loadConfigWith } from "./config.ts";
import { type Context, type ContextOptions, createContext } from "./context.ts";
import { modules } from "./domains/index.ts";
import { enabledModules } from "./module.ts";

export type { Context, ContextOptions } from "./context.ts";

let parts: ConfigPart[] | undefined;
/** Every area's config sections, in list order. */
export const configParts = (): readonly ConfigPart[] => (parts ??= modules.flatMap((m) => (m.config ? [m.config] : [])));

/** defaults ← svc.toml ← SVC_* ← flags, for the core and every area (docs/configuration.md). */
export function loadConfig(flags: ConfigFlags = {}, env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  return loadConfigWith(configParts(), flags, env, cwd);
}

/** The whole svc.toml schema. */
export const configSchema = (): TObject => configSchemaOf(configParts());

/** Every key's built-in default. */
export const defaults = () => defaultsOf(configParts());

export function openContext(config: Config, options: ContextOptions = {}): Context {
  const enabled = enabledModules(modules, config);
  // Extensions before migrations: a migration may touch an area's virtual tables (memory's vec0).
  const extensions = [...(options.extensions ?? []), ...enabled.flatMap((m) => m.sqliteExtensions?.(config) ?? [])];
  const ctx = createContext(config, { ...options, extensions });
  try {
    for (const m of enabled) m.wire?.(ctx);
  } catch (err) {
    ctx.close();
    throw err;
  }
  return ctx;
}

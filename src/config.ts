/**
 * Typed configuration: built-in defaults ← svc.toml ← SVC_* environment ← command-line flags.
 * Every key is documented in docs/configuration.md. Unknown keys and wrong types are refused
 * with the key's path, so a typo never silently falls back to a default.
 *
 * This file holds the loader and the sections every process needs (listen address, body
 * limit, rate limits, scheduler). Each area declares its own sections in its config.ts — the
 * schema, the default, the SVC_* variables that set it and the rules across fields — and adds
 * their types to DomainConfig by declaration merging; its module (src/domains/<area>/index.ts)
 * carries them. The loader here takes the parts as an argument and imports no area: src/open.ts
 * gives it every area's (loadConfig), so an area's files can import this one without a cycle.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { type Static, type TObject, type TSchema, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { sha256Hex } from "./core/secrets.ts";

/** The sections of the loader itself: what every process needs before any area runs. */
const CoreSections = {
  data_dir: T.String({ minLength: 1 }),
  listen: T.String({ pattern: "^(\\[[0-9a-fA-F:]+\\]|[^:\\s]+):\\d{1,5}$" }),
  public_url: T.String({ pattern: "^https?://[^/\\s]+$" }),
  log_level: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error")]),
  trust_proxy: T.Boolean(),
  max_body_bytes: T.Integer({ minimum: 1024, maximum: 1 << 30 }),
  /** Deepest nesting of arrays and objects a JSON request body may have (400 json_too_deep beyond). */
  max_json_depth: T.Integer({ minimum: 8, maximum: 1024 }),
  /** Most values a JSON request body may hold (400 json_too_many_values beyond). */
  max_json_elements: T.Integer({ minimum: 1000, maximum: 100_000_000 }),
  shutdown_grace_secs: T.Integer({ minimum: 0, maximum: 600 }),
  rate_limit: T.Object(
    {
      public_per_minute: T.Integer({ minimum: 0 }),
      public_burst: T.Integer({ minimum: 1 }),
    },
    { additionalProperties: false },
  ),
  database: T.Object(
    {
      /** Where `svc serve` runs WAL checkpoints: on a thread of their own, or inside the COMMIT that crosses 1,000 frames (SQLite's default). */
      checkpoints: T.Union([T.Literal("thread"), T.Literal("inline")]),
    },
    { additionalProperties: false },
  ),
  scheduler: T.Object(
    {
      poll_ms: T.Integer({ minimum: 10, maximum: 60_000 }),
      lease_secs: T.Integer({ minimum: 1 }),
      concurrency: T.Integer({ minimum: 1, maximum: 64 }),
    },
    { additionalProperties: false },
  ),
};

type CoreConfig = Static<ReturnType<typeof T.Object<typeof CoreSections>>>;

/**
 * The areas' sections. Each area adds its own here from its config.ts:
 *   declare module "../../config.ts" { interface DomainConfig { billing: Static<typeof BillingSection> } }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface DomainConfig {}

export type Config = CoreConfig &
  DomainConfig & {
    /** Where svc.toml lives (it may not exist yet). */
    config_path: string;
  };

/** An SVC_* variable and the key it sets; `sha256` stores the digest of a plaintext token. */
export interface EnvBinding {
  name: string;
  path: string;
  type: "string" | "integer" | "boolean" | "sha256";
}

/** What an area contributes to the configuration (src/module.ts). */
export interface ConfigPart {
  /** Top-level svc.toml keys the area owns, each with its schema and default value. */
  sections: Record<string, { schema: TSchema; default: unknown }>;
  /** SVC_* variables that set the area's keys. */
  env?: EnvBinding[];
  /** Runs on the merged tree before validation: normalise, fill item defaults, check (throw ConfigError). */
  prepare?(tree: Record<string, unknown>): void;
  /** Rules across fields, after validation: throw ConfigError naming the key. */
  check?(config: Config): void;
}

export class ConfigError extends Error {}

const schemas = new WeakMap<readonly ConfigPart[], TObject>();
/** The whole svc.toml schema: the core sections and the given areas'. */
export function configSchemaOf(parts: readonly ConfigPart[]): TObject {
  let schema = schemas.get(parts);
  if (!schema) {
    const sections = parts.flatMap((p) => Object.entries(p.sections).map(([k, s]) => [k, s.schema] as const));
    schema = T.Object({ ...CoreSections, ...Object.fromEntries(sections) }, { additionalProperties: false });
    schemas.set(parts, schema);
  }
  return schema;
}

export const DEFAULT_LISTEN = "127.0.0.1:8080";

export function defaultsOf(parts: readonly ConfigPart[]): Omit<Config, "config_path" | "public_url" | "data_dir"> {
  const core = {
    listen: DEFAULT_LISTEN,
    log_level: "info",
    trust_proxy: false,
    max_body_bytes: 10 * 1024 * 1024,
    max_json_depth: 64,
    max_json_elements: 1_000_000,
    shutdown_grace_secs: 20,
    rate_limit: { public_per_minute: 300, public_burst: 60 },
    database: { checkpoints: "thread" },
    scheduler: { poll_ms: 500, lease_secs: 300, concurrency: 4 },
  };
  // structuredClone: a caller that edits its config (tests do) must not edit the next one's defaults.
  const areas = Object.fromEntries(parts.flatMap((p) => Object.entries(p.sections).map(([k, s]) => [k, structuredClone(s.default)])));
  return { ...core, ...areas } as unknown as Omit<Config, "config_path" | "public_url" | "data_dir">;
}

/** "must be one of a, b" for a union of literals; TypeBox's own message is "Expected union value". */
export function schemaMessage(error: { schema: { anyOf?: { const?: unknown }[] }; message: string }): string {
  const options = error.schema.anyOf?.map((s) => s.const);
  return options?.length && options.every((o) => typeof o === "string") ? `must be one of ${options.join(", ")}` : error.message;
}

/** Values given on the command line; they win over everything else. */
export interface ConfigFlags {
  config?: string;
  dataDir?: string;
  listen?: string;
  publicUrl?: string;
  adminToken?: string;
  metricsToken?: string;
}

type Env = Record<string, string | undefined>;
export type Tree = Record<string, unknown>;

/** Where svc.toml is: --config, else SVC_CONFIG, else <data dir>/svc.toml. */
export function configPathFor(flags: ConfigFlags, env: Env, cwd = process.cwd()): string {
  const explicit = flags.config ?? env.SVC_CONFIG;
  if (explicit) return resolve(cwd, explicit);
  return join(resolve(cwd, flags.dataDir ?? env.SVC_DATA_DIR ?? "data"), "svc.toml");
}

export function readConfigFile(path: string): Tree {
  if (!existsSync(path)) return {};
  try {
    return parseToml(readFileSync(path, "utf8")) as Tree;
  } catch (err) {
    throw new ConfigError(`${path}: not valid TOML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
}

const CORE_ENV: EnvBinding[] = [
  { name: "SVC_LISTEN", path: "listen", type: "string" },
  { name: "SVC_PUBLIC_URL", path: "public_url", type: "string" },
  { name: "SVC_LOG_LEVEL", path: "log_level", type: "string" },
  { name: "SVC_MAX_BODY_BYTES", path: "max_body_bytes", type: "integer" },
  { name: "SVC_RATE_LIMIT_PER_MINUTE", path: "rate_limit.public_per_minute", type: "integer" },
  { name: "SVC_RATE_LIMIT_BURST", path: "rate_limit.public_burst", type: "integer" },
  { name: "SVC_TRUST_PROXY", path: "trust_proxy", type: "boolean" },
  { name: "SVC_DATABASE_CHECKPOINTS", path: "database.checkpoints", type: "string" },
];

function envValue(binding: EnvBinding, v: string): unknown {
  switch (binding.type) {
    case "string":
      return v;
    case "sha256":
      return sha256Hex(v);
    case "boolean":
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      throw new ConfigError(`${binding.name}: expected true or false, got "${v}"`);
    case "integer":
      if (!/^-?\d+$/.test(v.trim())) throw new ConfigError(`${binding.name}: expected an integer, got "${v}"`);
      return Number(v);
  }
}

function envTree(parts: readonly ConfigPart[], env: Env): Tree {
  const out: Tree = {};
  for (const binding of [...CORE_ENV, ...parts.flatMap((p) => p.env ?? [])]) {
    const v = env[binding.name];
    if (!v) continue;
    const keys = binding.path.split(".");
    let node = out;
    for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Tree;
    node[keys.at(-1)!] = envValue(binding, v);
  }
  return out;
}

function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = v && typeof v === "object" && !Array.isArray(v) && b && typeof b === "object" ? merge(b as Tree, v as Tree) : v;
  }
  return out;
}

/** The public URL a bare listen address implies: wildcard hosts become loopback. */
export function publicUrlFor(listen: string): string {
  const i = listen.lastIndexOf(":");
  let host = listen.slice(0, i);
  if (host === "0.0.0.0" || host === "") host = "127.0.0.1";
  if (host === "[::]") host = "[::1]";
  return `http://${host}:${listen.slice(i + 1)}`;
}

/** The configuration for the given areas' sections (src/open.ts loadConfig passes every area's). */
export function loadConfigWith(parts: readonly ConfigPart[], flags: ConfigFlags = {}, env: Env = process.env, cwd = process.cwd()): Config {
  const configPath = configPathFor(flags, env, cwd);
  const file = readConfigFile(configPath);
  const flagTree: Tree = {};
  if (flags.listen) flagTree.listen = flags.listen;
  if (flags.publicUrl) flagTree.public_url = flags.publicUrl;
  // The token flags of `svc setup` set what SVC_ADMIN_TOKEN / SVC_METRICS_TOKEN would, winning over both.
  const tokens = envTree(parts, { SVC_ADMIN_TOKEN: flags.adminToken, SVC_METRICS_TOKEN: flags.metricsToken });

  const merged = merge(merge(merge(merge(defaultsOf(parts) as unknown as Tree, file), envTree(parts, env)), tokens), flagTree);

  // data_dir: a flag or SVC_DATA_DIR wins; a relative data_dir in svc.toml is relative to the file.
  const dataDir = flags.dataDir ?? env.SVC_DATA_DIR;
  if (dataDir) merged.data_dir = resolve(cwd, dataDir);
  else if (typeof merged.data_dir === "string") merged.data_dir = isAbsolute(merged.data_dir) ? merged.data_dir : resolve(dirname(configPath), merged.data_dir);
  else merged.data_dir = dirname(configPath);

  if (merged.public_url === undefined && typeof merged.listen === "string") merged.public_url = publicUrlFor(merged.listen);
  if (typeof merged.public_url === "string") merged.public_url = merged.public_url.replace(/\/+$/, "");

  for (const part of parts) {
    try {
      part.prepare?.(merged);
    } catch (err) {
      if (err instanceof ConfigError && existsSync(configPath)) throw new ConfigError(`${configPath}: ${err.message}`);
      throw err;
    }
  }
  const errors = [...Value.Errors(configSchemaOf(parts), merged)];
  if (errors.length) {
    const where = existsSync(configPath) ? configPath : "configuration";
    const lines = errors.slice(0, 5).map((e) => `  ${e.path.slice(1).replaceAll("/", ".") || "(root)"}: ${e.message}`);
    throw new ConfigError(`${where} is invalid:\n${lines.join("\n")}`);
  }
  const config = { ...(merged as unknown as Config), config_path: configPath };
  for (const part of parts) part.check?.(config);
  return config;
}

export const paths = (config: Pick<Config, "data_dir">) => ({
  db: join(config.data_dir, "svc.db"),
  masterKey: join(config.data_dir, "master.key"),
  signerKey: join(config.data_dir, "signer.key"),
  /** The C2PA signing credential (src/domains/media/provenance/credentials.ts). */
  provenance: join(config.data_dir, "provenance"),
  /** Sealed media assets: generated videos, images served by URL (src/domains/media/asset-store.ts). */
  media: join(config.data_dir, "media"),
  /** Written by svc from svc.toml for the litestream child; never edited by hand. */
  litestreamConfig: join(config.data_dir, "litestream.yml"),
  litestreamPid: join(config.data_dir, "litestream.pid"),
  servePid: join(config.data_dir, "svc.pid"),
});

/** Writes svc.toml: the keys given, on top of what the file already holds. */
export function writeConfigFile(path: string, values: Tree): void {
  const current = readConfigFile(path);
  const next = merge(current, values);
  const header = "# svc configuration. Reference: docs/configuration.md. Written by `svc setup`; safe to edit.\n";
  writeFileSync(path, header + stringifyToml(next) + "\n", { mode: 0o640 });
}

export function listenParts(listen: string): { hostname: string; port: number } {
  const i = listen.lastIndexOf(":");
  return { hostname: listen.slice(0, i).replace(/^\[|\]$/g, ""), port: Number(listen.slice(i + 1)) };
}

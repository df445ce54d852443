/**
 * Typed configuration: built-in defaults ← svc.toml ← SVC_* environment ← command-line flags.
 * Every key is documented in docs/configuration.md. Unknown keys and wrong types are refused
 * with the key's path, so a typo never silently falls back to a default.
 *
 * Bearer tokens for the admin and metrics groups are kept only as sha256 in svc.toml; the
 * SVC_ADMIN_TOKEN / SVC_METRICS_TOKEN variables carry the plaintext and are hashed on load.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { sha256Hex } from "./core/secrets.ts";
import { parseReplica, ReplicaUrlError } from "./domains/backup/replica-url.ts";

const Sha256 = T.String({ pattern: "^[0-9a-f]{64}$" });

/** Provider adapter kinds: src/domains/inference/providers/registry.ts holds one adapter factory per kind. */
export const PROVIDER_KINDS = ["openai", "anthropic"] as const;
/** Privacy tiers a provider may satisfy (svc_privacy_tier picks among them; docs/inference.md). */
export const PRIVACY_TIERS = ["standard", "zero_retention", "confidential"] as const;
export type PrivacyTier = (typeof PRIVACY_TIERS)[number];

const ProviderName = T.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,31}$" });
/** Prices are integers in micro-USD per million tokens; absent = not priced (such a model is refused, never billed at 0). */
const PricePerMtok = T.Optional(T.Integer({ minimum: 0 }));

/** One upstream LLM API (svc providers add|list|remove). */
export const ProviderSchema = T.Object(
  {
    name: ProviderName,
    kind: T.Union([T.Literal("openai"), T.Literal("anthropic")]),
    /** OpenAI kind: up to and including /v1 (https://api.openai.com/v1); anthropic kind: the origin (https://api.anthropic.com). */
    base_url: T.String({ pattern: "^https?://[^\\s]+$" }),
    /** The API key comes from this environment variable of the svc process… */
    api_key_env: T.Optional(T.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]{0,127}$" })),
    /** …or is sealed with the master key, bound to the provider's name (svc providers add --api-key-stdin). */
    api_key_sealed: T.Optional(T.String({ pattern: "^v1\\.[0-9a-f]{8}\\.[A-Za-z0-9_-]+$" })),
    regions: T.Array(T.String({ pattern: "^[a-z0-9][a-z0-9-]{0,31}$" }), { default: [] }),
    privacy_tiers: T.Array(T.Union(PRIVACY_TIERS.map((tier) => T.Literal(tier))), { default: ["standard"] }),
    /** The longest one call may take, streaming included (seconds; fractions allowed). */
    timeout_secs: T.Number({ exclusiveMinimum: 0, maximum: 3600, default: 600 }),
    /** Streaming calls only: the longest to wait for the upstream's response headers (docs/inference.md). */
    connect_timeout_secs: T.Optional(T.Number({ exclusiveMinimum: 0, maximum: 600 })),
    /** Extra request headers (plain text in svc.toml: no credentials here). */
    headers: T.Optional(T.Record(T.String({ pattern: "^[A-Za-z0-9-]{1,64}$" }), T.String({ maxLength: 1024 }))),
    /** OpenAI kind only: the upstream also serves POST /responses. */
    supports_responses: T.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

/** One model of the catalogue (GET /v1/models; svc models add|list|remove). */
export const ModelSchema = T.Object(
  {
    id: T.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$" }),
    provider: ProviderName,
    /** The model's name at the provider. */
    upstream: T.String({ minLength: 1, maxLength: 200 }),
    type: T.Union([T.Literal("chat"), T.Literal("embedding")], { default: "chat" }),
    input_micro_usd_per_mtok: PricePerMtok,
    output_micro_usd_per_mtok: PricePerMtok,
    /** Cache reads; absent: cached tokens are billed at the input price. */
    cached_input_micro_usd_per_mtok: PricePerMtok,
    context_length: T.Optional(T.Integer({ minimum: 1 })),
    max_output: T.Optional(T.Integer({ minimum: 1 })),
    modalities: T.Array(T.Union([T.Literal("text"), T.Literal("image")]), { minItems: 1, default: ["text"] }),
    /** Other providers serving the same upstream name, tried in order when the provider fails. */
    fallback_providers: T.Array(ProviderName, { default: [] }),
    /** Unix seconds, shown as `created` by GET /v1/models (svc models add sets it). */
    created: T.Optional(T.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const ConfigSchema = T.Object(
  {
    data_dir: T.String({ minLength: 1 }),
    listen: T.String({ pattern: "^(\\[[0-9a-fA-F:]+\\]|[^:\\s]+):\\d{1,5}$" }),
    public_url: T.String({ pattern: "^https?://[^/\\s]+$" }),
    log_level: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error")]),
    trust_proxy: T.Boolean(),
    max_body_bytes: T.Integer({ minimum: 1024, maximum: 1 << 30 }),
    shutdown_grace_secs: T.Integer({ minimum: 0, maximum: 600 }),
    admin: T.Object({ token_sha256: T.Union([Sha256, T.Null()]) }, { additionalProperties: false }),
    metrics: T.Object({ token_sha256: T.Union([Sha256, T.Null()]) }, { additionalProperties: false }),
    rate_limit: T.Object(
      {
        public_per_minute: T.Integer({ minimum: 0 }),
        public_burst: T.Integer({ minimum: 1 }),
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
    health: T.Object(
      {
        sample_interval_secs: T.Integer({ minimum: 1 }),
        retention_days: T.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
    billing: T.Object(
      {
        enforced: T.Boolean(),
        /** Where USDT deposits and x402 payments go; empty = deposits and payments off. */
        treasury: T.String(),
        /** Deployment default balance_low threshold (an account may set its own). */
        balance_low_micro_usd: T.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    /** EVM chains deposits are accepted on (svc chains add|list|remove). */
    chains: T.Array(
      T.Object(
        {
          name: T.String({ pattern: "^[a-z0-9][a-z0-9-]{0,31}$" }),
          chain_id: T.Integer({ minimum: 1 }),
          rpc_url: T.String({ pattern: "^https?://" }),
          usdt: T.String({ pattern: "^0x[0-9a-fA-F]{40}$" }),
          decimals: T.Integer({ minimum: 0, maximum: 36 }),
          confirmations: T.Integer({ minimum: 1, maximum: 10_000 }),
          explorer_url: T.Optional(T.String({ pattern: "^https?://" })),
        },
        { additionalProperties: false },
      ),
    ),
    /** The plan catalogue (GET /v1/billing/plans). */
    plans: T.Array(
      T.Object(
        {
          id: T.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,31}$" }),
          name: T.String({ minLength: 1 }),
          monthly_fee_micro_usd: T.Integer({ minimum: 0 }),
          retention_days: T.Integer({ minimum: 1 }),
          limits: T.Record(T.String(), T.Integer({ minimum: 0 })),
          features: T.Array(T.String()),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
    auth: T.Object(
      {
        /** A session unused for this long expires (each use slides it forward)… */
        session_idle_secs: T.Integer({ minimum: 60 }),
        /** …and none lives longer than this, used or not. */
        session_max_secs: T.Integer({ minimum: 60 }),
        /** Chain ids a SIWE message may name. */
        siwe_chain_ids: T.Array(T.Integer({ minimum: 1 }), { minItems: 1 }),
        /** A SIWE message issued longer ago than this is refused. */
        siwe_max_age_secs: T.Integer({ minimum: 10 }),
      },
      { additionalProperties: false },
    ),
    keys: T.Object(
      {
        /** A rotated key keeps working (as its replacement) this long. */
        rotation_grace_secs: T.Integer({ minimum: 0 }),
        /** Default circuit breaker: spend per rolling minute above this freezes a key; 0 = off. */
        breaker_micro_usd_per_minute: T.Integer({ minimum: 0 }),
        /** How many levels of delegated keys may hang below a key minted by a person. */
        max_delegation_depth: T.Integer({ minimum: 0, maximum: 16 }),
      },
      { additionalProperties: false },
    ),
    passkeys: T.Object(
      {
        /** WebAuthn relying party id (a registrable domain, e.g. example.com); empty = passkeys off (404). */
        rp_id: T.String(),
        rp_name: T.String({ minLength: 1 }),
        /** Origin browsers sign for, e.g. https://app.example.com; empty = passkeys off. */
        origin: T.String(),
      },
      { additionalProperties: false },
    ),
    /** Receipt batches and run proofs: their Merkle roots and where they are anchored (docs/receipts.md). */
    anchors: T.Object(
      {
        /** The memo an anchor carries is `<memo_prefix>:v1:<root>`. */
        memo_prefix: T.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$" }),
        /** How often new receipts are gathered into one batch root and anchored. */
        batch_interval_secs: T.Integer({ minimum: 60, maximum: 7 * 86_400 }),
        evm: T.Object(
          {
            /** A chain name from chains[] to anchor roots on (a transaction per root); empty = off. */
            chain: T.String(),
            /** Blocks a root's transaction needs to count as anchored; absent: the chain's `confirmations`. */
            confirmations: T.Optional(T.Integer({ minimum: 1, maximum: 10_000 })),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    /** Upstream LLM APIs and the model catalogue: hot-reloaded by a running server (src/domains/inference/catalog.ts). */
    providers: T.Array(ProviderSchema),
    /** POST /v1/assistant: the keyless assistant (docs/inference.md). */
    assistant: T.Object(
      {
        /** A model id of the catalogue; empty = the assistant is off (404). */
        model: T.String({ maxLength: 128 }),
        /** What all assistant calls together may cost per UTC day, integer micro-USD. */
        daily_budget_micro_usd: T.Integer({ minimum: 0 }),
        /** Requests per minute per client address (its burst is the same number). */
        per_ip_per_minute: T.Integer({ minimum: 1, maximum: 10_000 }),
        /** The most output one answer may have (a request may ask for less). */
        max_output_tokens: T.Integer({ minimum: 1, maximum: 32_768 }),
      },
      { additionalProperties: false },
    ),
    models: T.Array(ModelSchema),
    /** Outbound webhooks (docs/webhooks.md). */
    webhooks: T.Object(
      {
        /** An attempt that has not answered within this long is a failed attempt. */
        timeout_secs: T.Integer({ minimum: 1, maximum: 120 }),
        /** Allow targets on private, loopback, link-local and other non-public addresses (tests, private deployments). */
        allow_private: T.Boolean(),
      },
      { additionalProperties: false },
    ),
    backup: T.Object(
      {
        /** Litestream replica URL (file:///dir, s3://bucket/path?…), or "off". */
        replica: T.String({ minLength: 1 }),
        sync_interval_secs: T.Integer({ minimum: 1, maximum: 3600 }),
        /** The litestream program: a path, or a name looked up on PATH. */
        litestream: T.String({ minLength: 1 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema> & {
  /** Where svc.toml lives (it may not exist yet). */
  config_path: string;
};

export const DEFAULT_LISTEN = "127.0.0.1:8080";

export function defaults(): Omit<Config, "config_path" | "public_url" | "data_dir"> {
  return {
    listen: DEFAULT_LISTEN,
    log_level: "info",
    trust_proxy: false,
    max_body_bytes: 10 * 1024 * 1024,
    shutdown_grace_secs: 20,
    admin: { token_sha256: null },
    metrics: { token_sha256: null },
    rate_limit: { public_per_minute: 300, public_burst: 60 },
    scheduler: { poll_ms: 500, lease_secs: 300, concurrency: 4 },
    health: { sample_interval_secs: 60, retention_days: 90 },
    billing: { enforced: true, treasury: "", balance_low_micro_usd: 5_000_000 },
    chains: [],
    plans: [{ id: "free", name: "Free", monthly_fee_micro_usd: 0, retention_days: 30, limits: {}, features: [] }],
    auth: { session_idle_secs: 7 * 86_400, session_max_secs: 30 * 86_400, siwe_chain_ids: [1], siwe_max_age_secs: 600 },
    keys: { rotation_grace_secs: 86_400, breaker_micro_usd_per_minute: 5_000_000, max_delegation_depth: 4 },
    passkeys: { rp_id: "", rp_name: "svc", origin: "" },
    anchors: { memo_prefix: "svc", batch_interval_secs: 3600, evm: { chain: "" } },
    webhooks: { timeout_secs: 15, allow_private: false },
    backup: { replica: "off", sync_interval_secs: 1, litestream: "litestream" },
    providers: [],
    models: [],
    assistant: { model: "", daily_budget_micro_usd: 1_000_000, per_ip_per_minute: 10, max_output_tokens: 1024 },
  };
}

export class ConfigError extends Error {}

export type ProviderConfig = Static<typeof ProviderSchema>;
export type ModelConfig = Static<typeof ModelSchema>;
export interface InferenceSection {
  providers: ProviderConfig[];
  models: ModelConfig[];
}

/** "must be one of a, b" for a union of literals; TypeBox's own message is "Expected union value". */
function schemaMessage(error: { schema: { anyOf?: { const?: unknown }[] }; message: string }): string {
  const options = error.schema.anyOf?.map((s) => s.const);
  return options?.length && options.every((o) => typeof o === "string") ? `must be one of ${options.join(", ")}` : error.message;
}

function itemErrors(label: string, schema: typeof ProviderSchema | typeof ModelSchema, items: unknown): string[] {
  if (items === undefined) return [];
  if (!Array.isArray(items)) return [`${label}: expected an array of tables ([[${label}]])`];
  const out: string[] = [];
  items.forEach((item, i) => {
    Value.Default(schema, item);
    const key = item && typeof item === "object" ? ((item as Tree).name ?? (item as Tree).id) : undefined;
    const where = `${label}[${i}]${typeof key === "string" ? ` (${key})` : ""}`;
    for (const e of Value.Errors(schema, item)) out.push(`${where}.${e.path.slice(1).replaceAll("/", ".") || "(table)"}: ${schemaMessage(e as never)}`);
  });
  return out;
}

/**
 * Checks providers[] and models[] as a whole and fills their defaults: each entry's fields, then
 * what ties them together (unique names and ids, every provider a model names exists and can
 * serve it, one credential source per provider). loadConfig runs it at start and the catalogue
 * runs it on every hot reload, so a file a running server accepts is a file `svc serve` accepts.
 */
export function parseInferenceSection(tree: { providers?: unknown; models?: unknown }): InferenceSection {
  const errors = [...itemErrors("providers", ProviderSchema, tree.providers), ...itemErrors("models", ModelSchema, tree.models)];
  if (errors.length) throw new ConfigError(`inference catalogue is invalid:\n${errors.slice(0, 5).map((l) => `  ${l}`).join("\n")}`);
  const providers = (tree.providers ?? []) as ProviderConfig[];
  const models = (tree.models ?? []) as ModelConfig[];
  const problems: string[] = [];
  const byName = new Map<string, ProviderConfig>();
  for (const p of providers) {
    if (byName.has(p.name)) problems.push(`providers: two providers are named "${p.name}"`);
    byName.set(p.name, p);
    if (p.api_key_env !== undefined && p.api_key_sealed !== undefined) problems.push(`providers (${p.name}): give api_key_env or api_key_sealed, not both`);
    if (p.supports_responses && p.kind !== "openai") problems.push(`providers (${p.name}): supports_responses applies to the openai kind only`);
    for (const h of Object.keys(p.headers ?? {})) {
      if (/^(authorization|x-api-key|anthropic-version|content-type|content-length|host|accept)$/i.test(h)) problems.push(`providers (${p.name}): headers may not set ${h} (svc sets it)`);
    }
  }
  const ids = new Set<string>();
  for (const m of models) {
    if (ids.has(m.id)) problems.push(`models: two models have the id "${m.id}"`);
    ids.add(m.id);
    const serving = [m.provider, ...m.fallback_providers];
    for (const name of serving) {
      const p = byName.get(name);
      if (!p) problems.push(`models (${m.id}): provider "${name}" is not configured (providers: ${[...byName.keys()].join(", ") || "none"})`);
      else if (m.type === "embedding" && p.kind === "anthropic") problems.push(`models (${m.id}): provider "${name}" is of kind anthropic, which serves no embeddings`);
    }
    if (new Set(serving).size !== serving.length) problems.push(`models (${m.id}): fallback_providers repeat a provider (or name the model's own provider)`);
  }
  if (problems.length) throw new ConfigError(`inference catalogue is invalid:\n${problems.slice(0, 5).map((l) => `  ${l}`).join("\n")}`);
  return { providers, models };
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
type Tree = Record<string, unknown>;

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

function envTree(env: Env): Tree {
  const out: Tree = {};
  const set = (path: string, value: unknown) => {
    const keys = path.split(".");
    let node = out;
    for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Tree;
    node[keys.at(-1)!] = value;
  };
  const bool = (name: string, v: string) => {
    if (/^(1|true|yes|on)$/i.test(v)) return true;
    if (/^(0|false|no|off)$/i.test(v)) return false;
    throw new ConfigError(`${name}: expected true or false, got "${v}"`);
  };
  const int = (name: string, v: string) => {
    if (!/^-?\d+$/.test(v.trim())) throw new ConfigError(`${name}: expected an integer, got "${v}"`);
    return Number(v);
  };
  const strings: [string, string][] = [
    ["SVC_LISTEN", "listen"],
    ["SVC_PUBLIC_URL", "public_url"],
    ["SVC_LOG_LEVEL", "log_level"],
    ["SVC_REPLICA", "backup.replica"],
    ["SVC_LITESTREAM", "backup.litestream"],
    ["SVC_PASSKEY_RP_ID", "passkeys.rp_id"],
    ["SVC_PASSKEY_ORIGIN", "passkeys.origin"],
    ["SVC_TREASURY", "billing.treasury"],
  ];
  for (const [name, path] of strings) if (env[name]) set(path, env[name]);
  const ints: [string, string][] = [
    ["SVC_MAX_BODY_BYTES", "max_body_bytes"],
    ["SVC_RATE_LIMIT_PER_MINUTE", "rate_limit.public_per_minute"],
    ["SVC_RATE_LIMIT_BURST", "rate_limit.public_burst"],
  ];
  for (const [name, path] of ints) if (env[name]) set(path, int(name, env[name]!));
  const bools: [string, string][] = [
    ["SVC_TRUST_PROXY", "trust_proxy"],
    ["SVC_BILLING_ENFORCED", "billing.enforced"],
    ["SVC_ALLOW_PRIVATE_WEBHOOKS", "webhooks.allow_private"],
  ];
  for (const [name, path] of bools) if (env[name]) set(path, bool(name, env[name]!));
  if (env.SVC_ADMIN_TOKEN) set("admin.token_sha256", sha256Hex(env.SVC_ADMIN_TOKEN));
  if (env.SVC_METRICS_TOKEN) set("metrics.token_sha256", sha256Hex(env.SVC_METRICS_TOKEN));
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
  if (host === "0.0.0.0" || host === "" ) host = "127.0.0.1";
  if (host === "[::]") host = "[::1]";
  return `http://${host}:${listen.slice(i + 1)}`;
}

export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env, cwd = process.cwd()): Config {
  const configPath = configPathFor(flags, env, cwd);
  const file = readConfigFile(configPath);
  const flagTree: Tree = {};
  if (flags.listen) flagTree.listen = flags.listen;
  if (flags.publicUrl) flagTree.public_url = flags.publicUrl;
  if (flags.adminToken) flagTree.admin = { token_sha256: sha256Hex(flags.adminToken) };
  if (flags.metricsToken) flagTree.metrics = { token_sha256: sha256Hex(flags.metricsToken) };

  const merged = merge(merge(merge(defaults() as unknown as Tree, file), envTree(env)), flagTree);

  // data_dir: a flag or SVC_DATA_DIR wins; a relative data_dir in svc.toml is relative to the file.
  const dataDir = flags.dataDir ?? env.SVC_DATA_DIR;
  if (dataDir) merged.data_dir = resolve(cwd, dataDir);
  else if (typeof merged.data_dir === "string") merged.data_dir = isAbsolute(merged.data_dir) ? merged.data_dir : resolve(dirname(configPath), merged.data_dir);
  else merged.data_dir = dirname(configPath);

  if (merged.public_url === undefined && typeof merged.listen === "string") merged.public_url = publicUrlFor(merged.listen);
  if (typeof merged.public_url === "string") merged.public_url = merged.public_url.replace(/\/+$/, "");

  try {
    Object.assign(merged, parseInferenceSection(merged));
  } catch (err) {
    if (err instanceof ConfigError && existsSync(configPath)) throw new ConfigError(`${configPath}: ${err.message}`);
    throw err;
  }
  const errors = [...Value.Errors(ConfigSchema, merged)];
  if (errors.length) {
    const where = existsSync(configPath) ? configPath : "configuration";
    const lines = errors.slice(0, 5).map((e) => `  ${e.path.slice(1).replaceAll("/", ".") || "(root)"}: ${e.message}`);
    throw new ConfigError(`${where} is invalid:\n${lines.join("\n")}`);
  }
  const billing = merged.billing as { treasury: string };
  if (billing.treasury && !/^0x[0-9a-fA-F]{40}$/.test(billing.treasury)) throw new ConfigError(`billing.treasury: "${billing.treasury}" is not a 0x address`);
  const names = (merged.chains as { name: string }[]).map((c) => c.name);
  if (new Set(names).size !== names.length) throw new ConfigError("chains: two chains have the same name");
  const anchorChain = (merged.anchors as { evm: { chain: string } }).evm.chain;
  if (anchorChain && !names.includes(anchorChain)) throw new ConfigError(`anchors.evm.chain: "${anchorChain}" is not a configured chain (chains: ${names.join(", ") || "none"})`);
  const pk = merged.passkeys as { rp_id: string; origin: string };
  if (Boolean(pk.rp_id) !== Boolean(pk.origin)) throw new ConfigError("passkeys: set both rp_id and origin (or neither, to turn passkeys off)");
  if (pk.origin && !/^https?:\/\/[^/\s]+$/.test(pk.origin)) throw new ConfigError(`passkeys.origin: "${pk.origin}" must be scheme://host[:port] with no path`);
  const auth = merged.auth as { session_idle_secs: number; session_max_secs: number };
  if (auth.session_idle_secs > auth.session_max_secs) throw new ConfigError("auth.session_idle_secs must not exceed auth.session_max_secs");
  try {
    parseReplica((merged.backup as { replica: string }).replica);
  } catch (err) {
    if (err instanceof ReplicaUrlError) throw new ConfigError(`backup.replica: ${err.message}`);
    throw err;
  }
  return { ...(merged as Static<typeof ConfigSchema>), config_path: configPath };
}

export const paths = (config: Pick<Config, "data_dir">) => ({
  db: join(config.data_dir, "svc.db"),
  masterKey: join(config.data_dir, "master.key"),
  signerKey: join(config.data_dir, "signer.key"),
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

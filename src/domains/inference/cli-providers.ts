/**
 * svc providers add|list|remove: the upstream LLM APIs, kept in svc.toml (providers[]).
 * A running server picks changes up within a second (src/domains/inference/catalog.ts).
 *
 * Credentials are never printed: a key read from stdin is sealed into svc.toml at once, bound to
 * the provider's name, and every listing shows only where a key comes from ("env VAR",
 * "sealed", "none"). Base URLs are shown without user info or query, where keys sometimes hide.
 */
import { existsSync } from "node:fs";
import { type Config, paths } from "../../config.ts";
import { PRIVACY_TIERS, PROVIDER_KINDS, type ProviderConfig } from "./config.ts";
import { Sealer } from "../../core/seal.ts";
import { HOT_RELOAD_NOTICE, saveCatalog } from "./catalog.ts";
import { credentialAad, describeCredential, sealApiKey } from "./providers/credentials.ts";
import { type Command, CommandFailed, type Group, locationOptions, type Parsed, str, UsageError } from "../../cli/command.ts";

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const ENV_VAR = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** scheme://host/path: no user info, no query or fragment. */
export function redactBaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}${u.search ? "?…" : ""}`;
  } catch {
    return "(unparseable URL)";
  }
}

const strings = (v: Parsed["values"][string]): string[] => (Array.isArray(v) ? v : typeof v === "string" ? [v] : []);

function seconds(flag: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0) || n > max) throw new UsageError(`--${flag} must be a number of seconds above 0 and at most ${max}`);
  return n;
}

function parseHeaders(values: string[]): Record<string, string> | undefined {
  if (!values.length) return undefined;
  const out: Record<string, string> = {};
  for (const h of values) {
    const i = h.indexOf(":");
    if (i < 1) throw new UsageError(`--header must look like "Name: value", got "${h}"`);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

async function readKeyFromStdin(): Promise<string> {
  const key = (await Bun.stdin.text()).trim();
  if (!key) throw new UsageError("--api-key-stdin: nothing was read from standard input");
  if (/\s/.test(key)) throw new UsageError("--api-key-stdin: the key must be one line with no spaces");
  return key;
}

function sealerFor(config: Config): Sealer {
  const file = paths(config).masterKey;
  if (!existsSync(file)) throw new CommandFailed(`no master key in ${config.data_dir} to seal the API key with; run 'svc setup' first, or pass --data-dir / --config`);
  return Sealer.fromKeyFile(file);
}

/** Same settings, same key: a sealed key is compared by what it opens to, since each sealing differs. */
function sameProvider(a: ProviderConfig, b: ProviderConfig, sealer: Sealer | null): boolean {
  const strip = ({ api_key_sealed: _, ...rest }: ProviderConfig) => JSON.stringify(Object.entries(rest).sort());
  if (strip(a) !== strip(b)) return false;
  if ((a.api_key_sealed === undefined) !== (b.api_key_sealed === undefined)) return false;
  if (a.api_key_sealed === undefined || !sealer) return a.api_key_sealed === b.api_key_sealed;
  try {
    return sealer.openText(a.api_key_sealed, credentialAad(a.name)) === sealer.openText(b.api_key_sealed!, credentialAad(b.name));
  } catch {
    return false;
  }
}

export function describeProvider(p: ProviderConfig): string {
  const extras = [
    `key: ${describeCredential(p)}`,
    `regions: ${p.regions.length ? p.regions.join(",") : "-"}`,
    `privacy tiers: ${p.privacy_tiers.join(",")}`,
    `timeout ${p.timeout_secs}s`,
    ...(p.connect_timeout_secs !== undefined ? [`connect timeout ${p.connect_timeout_secs}s`] : []),
    ...(p.supports_responses ? ["responses"] : []),
    ...(p.headers && Object.keys(p.headers).length ? [`headers: ${Object.keys(p.headers).join(",")}`] : []),
  ];
  return `${p.name} (${p.kind} at ${redactBaseUrl(p.base_url)}; ${extras.join("; ")})`;
}

const add: Command = {
  name: "providers add",
  summary: "Add an upstream LLM API (or change one with --replace)",
  args: "NAME",
  positionals: { min: 1, max: 1 },
  options: {
    ...locationOptions,
    kind: { type: "string", value: "KIND", description: `${PROVIDER_KINDS.join(" | ")} (required; openai = any OpenAI-compatible API)` },
    "base-url": { type: "string", value: "URL", description: "openai, openai-images, openai-videos: up to /v1 (https://api.openai.com/v1); anthropic: the origin (https://api.anthropic.com) (required)" },
    "api-key-env": { type: "string", value: "VAR", description: "read the API key from this environment variable of svc serve" },
    "api-key-stdin": { type: "boolean", description: "read the API key from standard input and seal it into svc.toml" },
    region: { type: "string", multiple: true, value: "R", description: "a region it serves from, e.g. us, eu (repeatable)" },
    "privacy-tier": { type: "string", multiple: true, value: "T", description: `a privacy tier it satisfies: ${PRIVACY_TIERS.join(", ")} (repeatable; default standard)` },
    "timeout-secs": { type: "string", value: "N", description: "longest a call may take, streaming included (default 600)" },
    "connect-timeout-secs": { type: "string", value: "N", description: "streaming calls: longest wait for the upstream's headers (default 30)" },
    header: { type: "string", multiple: true, value: "'NAME: VALUE'", description: "an extra request header, stored in plain text (repeatable)" },
    "supports-responses": { type: "boolean", description: "openai kind: the upstream also serves POST /responses" },
    replace: { type: "boolean", description: "change a provider that already exists (its key is kept unless a new one is given)" },
  },
  details: `NAME is what models name as their provider (lowercase letters, digits, - and _).
With neither --api-key-env nor --api-key-stdin, no credential is sent (a local Ollama or vLLM).
Examples:
  svc providers add openai --kind openai --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY --region us
  printf %s "$ANTHROPIC_KEY" | svc providers add anthropic --kind anthropic --base-url https://api.anthropic.com --api-key-stdin`,
  async run({ values, positionals }, host) {
    const name = positionals[0]!;
    if (!NAME.test(name)) throw new UsageError(`NAME must be 1-32 lowercase letters, digits, - or _ (starting with a letter or digit), got "${name}"`);
    const kind = str(values.kind);
    if (!kind || !(PROVIDER_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${PROVIDER_KINDS.join(", ")}`);
    const baseUrl = str(values["base-url"]);
    if (!baseUrl || !/^https?:\/\/[^\s/]+/.test(baseUrl)) throw new UsageError("--base-url must be an http:// or https:// URL");
    const envVar = str(values["api-key-env"]);
    if (envVar !== undefined && !ENV_VAR.test(envVar)) throw new UsageError("--api-key-env must be an environment variable name (letters, digits, _)");
    if (envVar !== undefined && values["api-key-stdin"]) throw new UsageError("give --api-key-env or --api-key-stdin, not both");
    const tiers = strings(values["privacy-tier"]);
    for (const t of tiers) if (!(PRIVACY_TIERS as readonly string[]).includes(t)) throw new UsageError(`--privacy-tier must be one of ${PRIVACY_TIERS.join(", ")}, got "${t}"`);
    if (values["supports-responses"] && kind !== "openai") throw new UsageError("--supports-responses applies to --kind openai only");

    const config = host.configFrom(values);
    const existing = config.providers.find((p) => p.name === name);
    if (existing && !values.replace) {
      throw new CommandFailed(`provider ${name} already exists; pass --replace to change it (its key is kept unless you give a new one), or remove it first`);
    }
    const sealer = values["api-key-stdin"] || existing?.api_key_sealed ? sealerFor(config) : null;
    const credential: Pick<ProviderConfig, "api_key_env" | "api_key_sealed"> = envVar
      ? { api_key_env: envVar }
      : values["api-key-stdin"]
        ? { api_key_sealed: sealApiKey(sealer!, name, await readKeyFromStdin()) }
        : existing
          ? { api_key_env: existing.api_key_env, api_key_sealed: existing.api_key_sealed }
          : {};
    const provider: ProviderConfig = {
      name,
      kind: kind as ProviderConfig["kind"],
      base_url: baseUrl.replace(/\/+$/, ""),
      ...credential,
      regions: strings(values.region),
      privacy_tiers: (tiers.length ? [...new Set(tiers)] : ["standard"]) as ProviderConfig["privacy_tiers"],
      timeout_secs: seconds("timeout-secs", str(values["timeout-secs"]), 3600) ?? 600,
      connect_timeout_secs: seconds("connect-timeout-secs", str(values["connect-timeout-secs"]), 600),
      headers: parseHeaders(strings(values.header)),
      supports_responses: Boolean(values["supports-responses"]),
    };
    for (const key of Object.keys(provider) as (keyof ProviderConfig)[]) if (provider[key] === undefined) delete provider[key];

    if (existing && sameProvider(existing, provider, sealer)) return void console.log(`provider ${name} is already configured with these settings; no change`);
    const providers = existing ? config.providers.map((p) => (p.name === name ? provider : p)) : [...config.providers, provider];
    saveCatalog(config.config_path, { providers, models: config.models });
    console.log(`${existing ? "changed" : "added"} provider ${describeProvider(provider)}`);
    if (provider.api_key_env) console.log(`svc serve reads the key from ${provider.api_key_env} in its own environment (e.g. a systemd EnvironmentFile=); setting that variable needs a restart`);
    if (!config.models.some((m) => m.provider === name)) console.log(`next: svc models add ID --provider ${name} --upstream UPSTREAM_NAME --input-micro-usd-per-mtok N --output-micro-usd-per-mtok N`);
    console.log(HOT_RELOAD_NOTICE);
  },
};

const list: Command = {
  name: "providers list",
  summary: "The upstream LLM APIs, and the models each serves (credentials never shown)",
  options: { ...locationOptions, json: { type: "boolean", description: "print JSON" } },
  run({ values }, host) {
    const config = host.configFrom(values);
    const rows = config.providers.map((p) => ({
      name: p.name,
      kind: p.kind,
      base_url: redactBaseUrl(p.base_url),
      credential: describeCredential(p),
      regions: p.regions,
      privacy_tiers: p.privacy_tiers,
      timeout_secs: p.timeout_secs,
      connect_timeout_secs: p.connect_timeout_secs ?? null,
      supports_responses: p.supports_responses,
      header_names: Object.keys(p.headers ?? {}),
      models: config.models.filter((m) => m.provider === p.name).map((m) => m.id),
      fallback_for: config.models.filter((m) => m.fallback_providers.includes(p.name)).map((m) => m.id),
    }));
    if (values.json) return void console.log(JSON.stringify(rows, null, 2));
    if (!rows.length) return void console.log("no providers (svc providers add NAME --kind openai|anthropic|openai-images|openai-videos --base-url URL [--api-key-env VAR | --api-key-stdin])");
    for (const [i, p] of config.providers.entries()) {
      const models = rows[i]!.models;
      console.log(`${describeProvider(p)}  models: ${models.length ? models.join(", ") : "none"}`);
    }
  },
};

const remove: Command = {
  name: "providers remove",
  summary: "Remove a provider (refused while models use it, unless --force)",
  args: "NAME",
  positionals: { min: 1, max: 1 },
  options: {
    ...locationOptions,
    force: { type: "boolean", description: "also remove the models it serves, and drop it from other models' fallbacks" },
  },
  run({ values, positionals }, host) {
    const name = positionals[0]!;
    const config = host.configFrom(values);
    if (!config.providers.some((p) => p.name === name)) {
      const known = config.providers.map((p) => p.name);
      throw new CommandFailed(`no provider ${name} (configured: ${known.length ? known.join(", ") : "none"})`);
    }
    const pinned = config.models.filter((m) => m.provider === name).map((m) => m.id);
    const fallbackFor = config.models.filter((m) => m.fallback_providers.includes(name)).map((m) => m.id);
    if ((pinned.length || fallbackFor.length) && !values.force) {
      const uses = [...(pinned.length ? [`serves ${pinned.join(", ")}`] : []), ...(fallbackFor.length ? [`is a fallback for ${fallbackFor.join(", ")}`] : [])];
      throw new CommandFailed(`provider ${name} ${uses.join(" and ")}; remove those models first, or pass --force to remove the models it serves and drop it from the fallbacks`);
    }
    const models = config.models.filter((m) => m.provider !== name).map((m) => ({ ...m, fallback_providers: m.fallback_providers.filter((f) => f !== name) }));
    saveCatalog(config.config_path, { providers: config.providers.filter((p) => p.name !== name), models });
    console.log(`removed provider ${name}`);
    if (pinned.length) console.log(`removed the models it served: ${pinned.join(", ")}`);
    if (fallbackFor.length) console.log(`no longer a fallback for: ${fallbackFor.join(", ")}`);
    console.log(HOT_RELOAD_NOTICE);
  },
};

export const providersGroup: Group = { name: "providers", summary: "Upstream LLM APIs: add, list, remove", commands: [add, list, remove] };

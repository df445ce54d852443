/**
 * The inference catalogue: providers (with their adapters) and models, as svc.toml declares
 * them, kept current while the server runs.
 *
 * Hot reload. Providers and models are the one part of svc.toml a running server picks up
 * without a restart (everything else is read once at start). On use, at most once per
 * CHECK_INTERVAL_MS of the context's clock, the file's mtime/size/inode are compared with the
 * last load (one stat; no read unless it changed). A changed file is parsed and validated with
 * the same rules `svc serve` applies at start (parseInferenceSection in src/config.ts); a file
 * that fails keeps the last good catalogue in service and the reason is logged once. Checking on
 * use rather than on a timer means an idle server does no work, and a test moves its clock a
 * second instead of sleeping.
 *
 * Each load yields an immutable CatalogSnapshot. A request takes one snapshot and keeps it, so a
 * reload half-way through cannot hand it a model from one file and a provider from another;
 * in-flight calls finish on the adapters they started with.
 *
 * Availability. A provider whose credential cannot be had here (its environment variable is
 * unset, or its sealed key does not open) is "not configured" in the spec's sense: its adapter
 * refuses with upstream_unavailable, and a model no available provider can serve is left out
 * of GET /v1/models.
 *
 * Always read providers and models through ctx.catalog, never ctx.config (which is the file as
 * it was at start).
 */
import { statSync } from "node:fs";
import { readConfigFile, writeConfigFile } from "../../config.ts";
import { type InferenceSection, type ModelConfig, type ModelType, parseInferenceSection, type ProviderConfig } from "./config.ts";
import { type Clock, unixSecs } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Sealer } from "../../core/seal.ts";
import { describeCredential, resolveCredential } from "./providers/credentials.ts";
import { credentialUnavailable } from "./providers/errors.ts";
import { createAdapter } from "./providers/registry.ts";
import type { ProviderAdapter, ProviderSpec } from "./providers/types.ts";

/** How often, at most, svc.toml is checked for changes: CLI commands promise "within this". */
export const CHECK_INTERVAL_MS = 1000;
/** streaming header wait when a provider sets no connect_timeout_secs. */
export const DEFAULT_CONNECT_TIMEOUT_SECS = 30;

/** What the CLI says after changing providers or models. */
export const HOT_RELOAD_NOTICE = `a running svc picks this up within ${CHECK_INTERVAL_MS / 1000} s (no restart needed)`;

/**
 * Writes providers[] and models[] to svc.toml, after checking them exactly as a running server
 * will (ConfigError when they do not pass), so the CLI never leaves a file the server rejects.
 */
export function saveCatalog(configPath: string, section: InferenceSection): void {
  const checked = parseInferenceSection(structuredClone(section));
  writeConfigFile(configPath, { providers: checked.providers, models: checked.models });
}

export interface CatalogProvider {
  name: string;
  kind: ProviderConfig["kind"];
  regions: readonly string[];
  privacyTiers: readonly string[];
  /** "env VAR", "sealed" or "none": how the key is supplied, never the key. */
  credential: string;
  available: boolean;
  /** Why the provider cannot be called here; null when available. */
  unavailableReason: string | null;
  adapter: ProviderAdapter;
  /** The svc.toml entry as written (api_key_sealed is ciphertext). */
  config: Readonly<ProviderConfig>;
}

/** A model entry with `created` always filled in (the catalogue's start when svc.toml gives none). */
export type CatalogModel = Readonly<ModelConfig & { created: number }>;

export class CatalogSnapshot {
  constructor(
    readonly providers: ReadonlyMap<string, CatalogProvider>,
    readonly models: ReadonlyMap<string, CatalogModel>,
    /** When this snapshot was built (ms, context clock). */
    readonly loadedAt: number,
  ) {}

  model(id: string): CatalogModel | undefined {
    return this.models.get(id);
  }

  provider(name: string): CatalogProvider | undefined {
    return this.providers.get(name);
  }

  /** The available providers serving `model`, in the order to try them: its own, then its fallback_providers. */
  servingProviders(model: CatalogModel): CatalogProvider[] {
    return [model.provider, ...model.fallback_providers].map((n) => this.providers.get(n)).filter((p): p is CatalogProvider => p?.available === true);
  }

  /**
   * What GET /v1/models lists (chat and embedding models; GET /v1/images/models and
   * /v1/videos/models ask for theirs): each model with the provider that would serve it first;
   * models no available provider serves are left out.
   */
  listed(types: readonly ModelType[] = ["chat", "embedding"]): { model: CatalogModel; provider: CatalogProvider }[] {
    const out: { model: CatalogModel; provider: CatalogProvider }[] = [];
    for (const model of this.models.values()) {
      if (!types.includes(model.type)) continue;
      const provider = this.servingProviders(model)[0];
      if (provider) out.push({ model, provider });
    }
    return out;
  }
}

export interface CatalogOptions {
  /** svc.toml (it may not exist). */
  configPath: string;
  /** Opens sealed API keys; null where there is no master key (keys sealed in svc.toml are then unavailable). */
  sealer: Sealer | null;
  clock: Clock;
  log: Logger;
  /** Where api_key_env variables are looked up (process.env by default). */
  env?: Record<string, string | undefined>;
}

function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return "missing";
  }
}

function specOf(p: ProviderConfig): ProviderSpec {
  return {
    name: p.name,
    kind: p.kind,
    baseUrl: p.base_url,
    headers: { ...p.headers },
    timeoutMs: Math.round(p.timeout_secs * 1000),
    connectTimeoutMs: Math.round((p.connect_timeout_secs ?? Math.min(DEFAULT_CONNECT_TIMEOUT_SECS, p.timeout_secs)) * 1000),
    supportsResponses: p.supports_responses,
  };
}

/** An adapter for a provider that cannot be called here: it says so on every call. */
function unavailableAdapter(spec: ProviderSpec, reason: string, supports: ProviderAdapter["supports"]): ProviderAdapter {
  return { name: spec.name, kind: spec.kind, supports, request: () => Promise.reject(credentialUnavailable(spec.name, reason)) };
}

export class Catalog {
  private snapshot: CatalogSnapshot;
  private stamp: string;
  private nextCheckAt: number;
  /** The stamp of the last file that failed validation, so its reason is logged once, not every second. */
  private rejectedStamp: string | null = null;
  private readonly startedSecs: number;
  private readonly env: Record<string, string | undefined>;

  /** `initial` is what the context's config holds (loaded from the same file a moment ago). */
  constructor(
    initial: InferenceSection,
    private readonly options: CatalogOptions,
  ) {
    this.env = options.env ?? process.env;
    this.startedSecs = unixSecs(options.clock.now());
    this.stamp = fileStamp(options.configPath);
    this.snapshot = this.build(initial);
    this.nextCheckAt = options.clock.now() + CHECK_INTERVAL_MS;
  }

  /** The catalogue to use for one request (re-read first when svc.toml changed and the check is due). */
  current(): CatalogSnapshot {
    if (this.options.clock.now() >= this.nextCheckAt) this.refresh();
    return this.snapshot;
  }

  /**
   * Checks svc.toml now: "unchanged", "reloaded", or "rejected" (the file changed but is not
   * valid, or is gone; the last good catalogue stays).
   */
  refresh(): "unchanged" | "reloaded" | "rejected" {
    const { clock, log, configPath } = this.options;
    this.nextCheckAt = clock.now() + CHECK_INTERVAL_MS;
    const stamp = fileStamp(configPath);
    if (stamp === this.stamp) return "unchanged";
    if (stamp === this.rejectedStamp) return "rejected";
    try {
      if (stamp === "missing") throw new Error(`${configPath} is missing`);
      const tree = readConfigFile(configPath);
      const section = parseInferenceSection({ providers: tree.providers ?? [], models: tree.models ?? [] });
      this.snapshot = this.build(section);
      this.stamp = stamp;
      this.rejectedStamp = null;
      log.info("inference catalogue reloaded from svc.toml", { providers: this.snapshot.providers.size, models: this.snapshot.models.size });
      return "reloaded";
    } catch (err) {
      this.rejectedStamp = stamp;
      log.warn("svc.toml changed, but its providers/models are not valid: keeping the last good inference catalogue", {
        error: err instanceof Error ? err.message : String(err),
      });
      return "rejected";
    }
  }

  private build(section: InferenceSection): CatalogSnapshot {
    const providers = new Map<string, CatalogProvider>();
    for (const p of section.providers) {
      const spec = specOf(p);
      const credential = resolveCredential(p, this.options.sealer, this.env);
      const adapter = credential.ok ? createAdapter(spec, credential.apiKey) : null;
      const supports = adapter?.supports ?? createAdapter(spec, null).supports;
      if (!credential.ok) this.options.log.info("inference provider not available", { provider: p.name, reason: credential.reason });
      providers.set(p.name, {
        name: p.name,
        kind: p.kind,
        regions: [...p.regions],
        privacyTiers: [...p.privacy_tiers],
        credential: describeCredential(p),
        available: credential.ok,
        unavailableReason: credential.ok ? null : credential.reason,
        adapter: adapter ?? unavailableAdapter(spec, credential.ok ? "" : credential.reason, supports),
        config: Object.freeze({ ...p }),
      });
    }
    const models = new Map<string, CatalogModel>();
    for (const m of section.models) models.set(m.id, Object.freeze({ ...m, created: m.created ?? this.startedSecs }));
    return new CatalogSnapshot(providers, models, this.options.clock.now());
  }
}

declare module "../../context.ts" {
  interface Context {
    /** Inference providers and models; follows svc.toml while running (set by the inference module's wire). */
    catalog: Catalog;
  }
}

/**
 * Where a provider's API key comes from: the environment of the svc process (api_key_env), or
 * svc.toml itself, sealed with the master key (api_key_sealed). A sealed key is bound to the
 * provider's name (AAD), so copying it into another provider's entry makes it fail to open
 * rather than send one provider's key to another's URL.
 *
 * Resolved keys live only inside adapters (closures); everything else sees CredentialSource.
 */
import type { ProviderConfig } from "../config.ts";
import type { Sealer } from "../../../core/seal.ts";

export type CredentialSource = { kind: "none" } | { kind: "env"; variable: string } | { kind: "sealed" };

export const credentialAad = (provider: string): string => `svc/provider-api-key/${provider}`;

export function sealApiKey(sealer: Sealer, provider: string, apiKey: string): string {
  return sealer.seal(apiKey, credentialAad(provider));
}

export function credentialSource(p: Pick<ProviderConfig, "api_key_env" | "api_key_sealed">): CredentialSource {
  if (p.api_key_env !== undefined) return { kind: "env", variable: p.api_key_env };
  if (p.api_key_sealed !== undefined) return { kind: "sealed" };
  return { kind: "none" };
}

/** How `svc providers list` and logs show it: never the key. */
export function describeCredential(p: Pick<ProviderConfig, "api_key_env" | "api_key_sealed">): string {
  const source = credentialSource(p);
  return source.kind === "env" ? `env ${source.variable}` : source.kind;
}

export type ResolvedCredential = { ok: true; apiKey: string | null } | { ok: false; reason: string };

/** The key itself, or why there is none to use (the provider is then not available). */
export function resolveCredential(p: ProviderConfig, sealer: Sealer | null, env: Record<string, string | undefined>): ResolvedCredential {
  if (p.api_key_env !== undefined) {
    const value = env[p.api_key_env]?.trim();
    return value ? { ok: true, apiKey: value } : { ok: false, reason: `its API key variable ${p.api_key_env} is not set in svc's environment` };
  }
  if (p.api_key_sealed !== undefined) {
    if (!sealer) return { ok: false, reason: "its sealed API key cannot be opened without the master key" };
    try {
      return { ok: true, apiKey: sealer.openText(p.api_key_sealed, credentialAad(p.name)) };
    } catch {
      return { ok: false, reason: "its sealed API key does not open with this deployment's master key (sealed elsewhere, or for another provider name)" };
    }
  }
  return { ok: true, apiKey: null };
}

/**
 * GET /v1/registry/identity/:handle: the passport as an ERC-8004 agent registration file — the
 * off-chain JSON an ERC-8004 identity registry's agentURI points to (type, name, description,
 * services, registrations, supportedTrust). Only that half exists: svc deploys no registry
 * contract, so `registrations` is empty and the `erc8004` block says so. An operator who
 * registers the agent on a registry can point its agentURI here.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import type { IdentityDocument } from "./models.ts";
import { identitySource } from "./service.ts";

export const REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";

export function identityDocument(ctx: Context, handle: string): Static<typeof IdentityDocument> {
  const { passport: p, credential: c, urls } = identitySource(ctx, handle);
  const services: { name: string; endpoint: string; version?: string }[] = [
    { name: "agent-passport", endpoint: urls.passport, version: "1" },
    { name: "agent-passport-proof", endpoint: urls.proof, version: "1" },
  ];
  // An EOA has the same address on every EVM chain: the bare address claims no chain.
  if (p.wallet) services.push({ name: "agentWallet", endpoint: p.wallet });
  return {
    type: REGISTRATION_TYPE,
    name: p.agentName,
    description: `${p.agentName} (${p.handle}): an agent whose track record svc states in a signed, anchored passport. A track record, never a trust score.`,
    services,
    x402Support: false,
    active: true,
    registrations: [],
    supportedTrust: [],
    erc8004: {
      registry_deployed: false,
      identity_registry: null,
      agent_id: null,
      note: "Off-chain half only: svc deploys no ERC-8004 identity registry contract and has registered this agent on none, so there is no agentId. The passport's signature and its anchored commitment are what can be checked.",
    },
    passport: { handle: p.handle, commitment: c.commitment, signer: c.signer, passport_url: urls.passport, proof_url: urls.proof, updated_at: isoTime(p.updatedAt) },
  };
}

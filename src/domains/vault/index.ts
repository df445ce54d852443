/**
 * The vault registry: off-chain assets, holders' positions, attesters, sealed documents, transfers, distributions, view grants and wallet claims, with a hash-chained event log per asset (/v1/vault/*; docs/vault.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

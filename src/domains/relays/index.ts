/**
 * Relays: one-time, sealed share links (/v1/relays/*, /v1/relay-access/*; docs/relays.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

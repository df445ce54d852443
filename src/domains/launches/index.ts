/**
 * Launches: backed tokens watched against their custodian, with mint authorizations, redemptions and a public record (/v1/launches/*; docs/launches.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

/**
 * NAV records: private net-asset-value calculation over a sealed holdings book, reconciled against on-chain supply and price sources, signed and versioned, published on request (/v1/nav/*; docs/nav.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { METHODOLOGY_VERSION, type NavRecordView } from "./service.ts";

/**
 * Runs: receipts chained by svc_run_id, with Merkle proofs and audit evidence (/v1/runs/*).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { runProofAnchored } from "./service.ts";

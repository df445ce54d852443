/**
 * Hosted agents (/v1/agents/*): definitions, runs, inbound hooks, triggers and mailboxes
 * (`svc agents …`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { MAX_AGENTS_PER_ACCOUNT } from "./service.ts";

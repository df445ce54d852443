/**
 * Legacy plans: a dead-man's switch releasing sealed content to beneficiaries when check-ins stop (/v1/legacy/*; docs/legacy.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

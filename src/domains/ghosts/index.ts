/**
 * Ghost sessions: short-lived keys that leave no metadata behind (/v1/ghost/sessions).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

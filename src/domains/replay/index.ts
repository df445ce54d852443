/**
 * Replay capsules: what is needed to run a call again, sealed, and the replay's verdict (/v1/replay/*; docs/replay.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

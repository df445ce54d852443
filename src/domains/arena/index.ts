/**
 * The arena: receipted benchmark runs of models and engines over versioned eval suites (/v1/arena/*; docs/arena.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

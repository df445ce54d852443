/**
 * Agent post: paid cross-account mail between handles (/v1/post/*; docs/post.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

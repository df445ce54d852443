/**
 * Engine builds: pinned model + system prompt + parameters, published by slug and callable as engine/<slug> (/v1/engine/*; docs/engine.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};

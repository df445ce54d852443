/**
 * Engine builds: pinned model + system prompt + parameters, published by slug and callable as engine/<slug> (/v1/engine/*; docs/engine.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
/** `engine/<slug>` in inference: the caller's published build applied to the request (the inference pipeline). */
export { type EngineApi, type EngineCall, type EngineStamp, engineRequest } from "./apply.ts";
/** What `engine/<slug>` (or a pin) resolves to for an account now, or null: for areas that check a model name before calling it later. */
export { engineFor } from "./apply.ts";
export { ENGINE_PREFIX } from "./service.ts";

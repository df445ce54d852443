/**
 * Batches: the OpenAI Batch API over the inference pipeline, every line metered and receipted.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { type BatchView, listBatches } from "./service.ts";

/**
 * Metered inference: OpenAI- and Anthropic-shaped routes over configured providers, the model
 * catalogue, and the keyless assistant (`svc providers …`, `svc models …`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { PRIVACY_TIERS, type PrivacyTier } from "./config.ts";
export { checkEmbeddingModel, embedMetered, type MeteredEmbeddingRequest, type MeteredEmbeddings } from "./embed.ts";
/** One chat completion through the same pipeline as POST /v1/chat/completions (the MCP chat tool). */
export { checkChatModel, serveChatCompletion } from "./chat-service.ts";
/** A batch line through the same pipeline as its route (the batches area). */
export { BATCH_ENDPOINTS, type BatchLineResult, completeBatchLine, retryableLineError } from "./batch-line.ts";
/** A chat completion whose text another area reads (eval cases, judge jurors), metered and receipted like the route. */
export { type ChatCallAnswer, type ChatCallRequest, completeChat } from "./chat-call.ts";
export type { Caller } from "./pipeline.ts";
/** Account model routes: requests for one model served by another (autopilot's switch_model). */
export { clearModelRoute, type ModelRoute, modelRoutesOf, setModelRoute } from "./model-rerouting.ts";
/** The catalogue's media models and their providers' clients (the media area: images, videos). */
export type { CatalogModel, CatalogProvider } from "./catalog.ts";
export { UpstreamError } from "./providers/errors.ts";
export type { ImagesApi, VideoCreateInput, VideosApi } from "./providers/types.ts";

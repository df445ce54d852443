/**
 * The provider adapter: the one way inference code reaches an upstream LLM API. An adapter
 * sends a body that is ALREADY in the provider's native shape to the provider's native endpoint
 * and hands back the upstream's Response; translating between shapes is the caller's business
 * (src/domains/inference/translate/). What an adapter owns: the endpoint URLs, authentication,
 * timeouts, and turning every upstream failure into an UpstreamError that names the provider
 * (errors.ts). A new kind of provider is one factory in registry.ts.
 */
import type { ProviderConfig } from "../config.ts";

export type ProviderKind = ProviderConfig["kind"];

/** Native endpoints: chat = OpenAI /chat/completions, messages = Anthropic /v1/messages, embeddings and responses = OpenAI's. */
export type Endpoint = "chat" | "messages" | "embeddings" | "responses";

export interface UpstreamRequestOptions {
  /**
   * Aborting it cancels the upstream call at once (a client that went away); request() then
   * rejects, and a stream already handed back errors, with the signal's reason.
   */
  signal?: AbortSignal;
  /**
   * true: resolves as soon as the upstream's headers arrive; the body is its SSE stream, as sent.
   * false (default): resolves once the whole body has arrived, so a timeout or a connection lost
   * half-way is an UpstreamError here, never a half-read body later.
   */
  stream?: boolean;
  /** Headers for this call only (e.g. an anthropic-beta passed through). They cannot replace authentication. */
  headers?: Record<string, string>;
}

export interface ProviderAdapter {
  /** The provider's name in svc.toml; every error names it. */
  readonly name: string;
  readonly kind: ProviderKind;
  /** Whether request(endpoint) can be called at all (anthropic: messages; openai: chat, embeddings, responses when declared). */
  supports(endpoint: Endpoint): boolean;
  /**
   * POSTs `body` (JSON) to the endpoint. Resolves only with a 2xx Response: JSON, or an SSE
   * stream when options.stream. Any failure — refused connection, timeout, 429, 4xx, 5xx,
   * stream cut short — is thrown (or, mid-stream, raised by the body) as an UpstreamError.
   * The credential never appears in an error, a log line or the returned Response.
   */
  request(endpoint: Endpoint, body: object, options?: UpstreamRequestOptions): Promise<Response>;
  /** Media kinds: image generation (the openai-images kind). */
  readonly images?: ImagesApi;
  /** Media kinds: video generation jobs (the openai-videos kind). */
  readonly videos?: VideosApi;
}

/**
 * Image generation in the OpenAI Images API shape. `generate` sends the body as given (model =
 * the upstream name) and resolves with the upstream's parsed JSON; reading it (b64_json or url
 * per image) is the media area's business.
 */
export interface ImagesApi {
  generate(body: Record<string, unknown>, options?: UpstreamRequestOptions): Promise<unknown>;
}

/** What svc asks a video provider to render. */
export interface VideoCreateInput {
  /** The model's name at the provider. */
  model: string;
  prompt: string;
  seconds: number;
  size?: string;
  /** Image-to-video: the first frame. */
  image?: { bytes: Uint8Array; mime: string };
}

/**
 * Video generation jobs in the OpenAI Videos API shape: create a job, poll it, download its
 * content. create and retrieve resolve with the upstream's video object as parsed JSON.
 */
export interface VideosApi {
  create(input: VideoCreateInput, options?: UpstreamRequestOptions): Promise<unknown>;
  retrieve(id: string, options?: UpstreamRequestOptions): Promise<unknown>;
  content(id: string, options?: UpstreamRequestOptions): Promise<Uint8Array>;
}

/** What an adapter is built from: a provider's svc.toml entry, minus its credential source. */
export interface ProviderSpec {
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Streaming calls: the longest to wait for response headers; null = only the total timeout applies. */
  connectTimeoutMs: number | null;
  supportsResponses: boolean;
}

/** Builds a kind's adapter; `apiKey` null = send no credential (e.g. a local Ollama). */
export type AdapterFactory = (spec: ProviderSpec, apiKey: string | null) => ProviderAdapter;

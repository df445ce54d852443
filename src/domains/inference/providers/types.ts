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

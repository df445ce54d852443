/**
 * The `openai` kind: any OpenAI-compatible API (OpenAI, vLLM, Ollama, llama.cpp server,
 * OpenRouter, Together, Groq…). base_url reaches up to and including the version segment, as
 * the OpenAI SDKs take it (https://api.openai.com/v1, http://127.0.0.1:11434/v1); the endpoints
 * hang below it. Authentication: `Authorization: Bearer <key>`, or none when no key is set.
 */
import { endpointNotServed } from "./errors.ts";
import { postJson } from "./transport.ts";
import type { AdapterFactory, Endpoint, ProviderAdapter } from "./types.ts";

const PATHS: Partial<Record<Endpoint, string>> = {
  chat: "/chat/completions",
  embeddings: "/embeddings",
  responses: "/responses",
};

export const openaiAdapter: AdapterFactory = (spec, apiKey): ProviderAdapter => {
  const base = spec.baseUrl.replace(/\/+$/, "");
  const supports = (endpoint: Endpoint) => endpoint === "chat" || endpoint === "embeddings" || (endpoint === "responses" && spec.supportsResponses);
  return {
    name: spec.name,
    kind: "openai",
    supports,
    request(endpoint, body, options = {}) {
      if (!supports(endpoint)) return Promise.reject(endpointNotServed(spec.name, endpoint));
      return postJson(spec, apiKey, base + PATHS[endpoint]!, body, options, apiKey ? { authorization: `Bearer ${apiKey}` } : {});
    },
  };
};

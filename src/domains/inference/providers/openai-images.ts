/**
 * The `openai-images` kind: an upstream speaking the OpenAI Images API (OpenAI, Azure-style
 * gateways, LocalAI, most image hosts). base_url reaches up to and including /v1, as for the
 * `openai` kind; generation is POST {base}/images/generations. It serves image models only.
 */
import { endpointNotServed, readUpstreamJson } from "./errors.ts";
import { mediaCall } from "./transport.ts";
import type { AdapterFactory, ProviderAdapter } from "./types.ts";

export const openaiImagesAdapter: AdapterFactory = (spec, apiKey): ProviderAdapter => {
  const base = spec.baseUrl.replace(/\/+$/, "");
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  return {
    name: spec.name,
    kind: "openai-images",
    supports: () => false,
    request: (endpoint) => Promise.reject(endpointNotServed(spec.name, endpoint)),
    images: {
      async generate(body, options = {}) {
        const res = await mediaCall(spec, apiKey, `${base}/images/generations`, { method: "POST", body, accept: "application/json" }, options, auth);
        return readUpstreamJson(res, spec.name);
      },
    },
  };
};

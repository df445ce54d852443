/**
 * The `anthropic` kind: Anthropic's Messages API (or anything speaking it). base_url is the
 * origin, as Anthropic's SDKs take it (https://api.anthropic.com); the endpoint is /v1/messages.
 * Authentication: `x-api-key`, plus the API version every request must name. Messages is the
 * only endpoint: Anthropic serves no embeddings, and Responses-shaped calls are translated to
 * Messages by the caller.
 */
import { endpointNotServed } from "./errors.ts";
import { postJson } from "./transport.ts";
import type { AdapterFactory, Endpoint, ProviderAdapter } from "./types.ts";

/** The Messages API version svc speaks (Anthropic's current and only stable one). */
export const ANTHROPIC_VERSION = "2023-06-01";

export const anthropicAdapter: AdapterFactory = (spec, apiKey): ProviderAdapter => {
  const url = `${spec.baseUrl.replace(/\/+$/, "")}/v1/messages`;
  const supports = (endpoint: Endpoint) => endpoint === "messages";
  return {
    name: spec.name,
    kind: "anthropic",
    supports,
    request(endpoint, body, options = {}) {
      if (!supports(endpoint)) return Promise.reject(endpointNotServed(spec.name, endpoint));
      return postJson(spec, apiKey, url, body, options, {
        "anthropic-version": ANTHROPIC_VERSION,
        ...(apiKey ? { "x-api-key": apiKey } : {}),
      });
    },
  };
};

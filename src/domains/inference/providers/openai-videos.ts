/**
 * The `openai-videos` kind: an upstream speaking the OpenAI Videos API — POST {base}/videos
 * (multipart: model, prompt, seconds, size, input_reference) creates a job, GET
 * {base}/videos/{id} reports its status and progress, GET {base}/videos/{id}/content downloads
 * the MP4 once it is completed. It serves video models only.
 */
import { endpointNotServed, readUpstreamJson } from "./errors.ts";
import { mediaCall } from "./transport.ts";
import type { AdapterFactory, ProviderAdapter } from "./types.ts";

export const openaiVideosAdapter: AdapterFactory = (spec, apiKey): ProviderAdapter => {
  const base = spec.baseUrl.replace(/\/+$/, "");
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const job = (id: string) => `${base}/videos/${encodeURIComponent(id)}`;
  return {
    name: spec.name,
    kind: "openai-videos",
    supports: () => false,
    request: (endpoint) => Promise.reject(endpointNotServed(spec.name, endpoint)),
    videos: {
      async create(input, options = {}) {
        const form = new FormData();
        form.set("model", input.model);
        form.set("prompt", input.prompt);
        form.set("seconds", String(input.seconds));
        if (input.size) form.set("size", input.size);
        if (input.image) form.set("input_reference", new Blob([input.image.bytes], { type: input.image.mime }), "input_reference");
        const res = await mediaCall(spec, apiKey, `${base}/videos`, { method: "POST", body: form, accept: "application/json" }, options, auth);
        return readUpstreamJson(res, spec.name);
      },
      async retrieve(id, options = {}) {
        const res = await mediaCall(spec, apiKey, job(id), { method: "GET", body: null, accept: "application/json" }, options, auth);
        return readUpstreamJson(res, spec.name);
      },
      async content(id, options = {}) {
        const res = await mediaCall(spec, apiKey, `${job(id)}/content`, { method: "GET", body: null, accept: "video/mp4, application/octet-stream" }, options, auth);
        return new Uint8Array(await res.arrayBuffer());
      },
    },
  };
};

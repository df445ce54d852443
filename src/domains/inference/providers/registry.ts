/**
 * Adapter factories by provider kind. A new kind is a file beside openai.ts and one line here
 * (plus its literal in ProviderSchema.kind in ../config.ts; the Record type below fails the type
 * check until both agree).
 */
import { anthropicAdapter } from "./anthropic.ts";
import { openaiAdapter } from "./openai.ts";
import { openaiImagesAdapter } from "./openai-images.ts";
import { openaiVideosAdapter } from "./openai-videos.ts";
import type { AdapterFactory, ProviderAdapter, ProviderKind, ProviderSpec } from "./types.ts";

export const adapterFactories: Record<ProviderKind, AdapterFactory> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  "openai-images": openaiImagesAdapter,
  "openai-videos": openaiVideosAdapter,
};

export function createAdapter(spec: ProviderSpec, apiKey: string | null): ProviderAdapter {
  return adapterFactories[spec.kind](spec, apiKey);
}

/**
 * A gateway with the default chat catalogue plus a stand-in media provider (test/support/
 * upstream-media.ts): an image model and a video model with round prices.
 */
import { type Gateway, type GatewayOptions, startGateway, UPSTREAM_KEY, withModels } from "../inference/inference-support.ts";
import { type MediaUpstream, startMediaUpstream } from "../../support/upstream-media.ts";
import { onCleanup } from "../../support/cleanup.ts";

export const IMAGE_PRICE = 40_000;
export const VIDEO_PRICE_PER_SECOND = 100_000;
export const VIDEO_DURATIONS = [4, 8, 12];

export interface MediaGateway extends Gateway {
  media: MediaUpstream;
}

export async function startMediaGateway(options: GatewayOptions = {}): Promise<MediaGateway> {
  const media = startMediaUpstream({ apiKey: UPSTREAM_KEY });
  onCleanup(() => media.stop());
  const g = await startGateway({
    ...options,
    catalog: (stub) => {
      const base = withModels([
        { id: "img-test", provider: "img", upstream: "stand-in-image", type: "image", price_micro_usd_per_image: IMAGE_PRICE, sizes: ["1024x1024", "512x512"], aspect_ratios: ["1:1"], max_images: 4, input_micro_usd_per_mtok: undefined, output_micro_usd_per_mtok: undefined, max_output: undefined },
        {
          id: "vid-test",
          provider: "vid",
          upstream: "stand-in-video",
          type: "video",
          price_micro_usd_per_second: VIDEO_PRICE_PER_SECOND,
          durations: VIDEO_DURATIONS,
          sizes: ["1280x720", "720x1280"],
          aspect_ratios: ["16:9", "9:16"],
          input_micro_usd_per_mtok: undefined,
          output_micro_usd_per_mtok: undefined,
          max_output: undefined,
        },
      ])(stub);
      return {
        providers: [
          ...base.providers,
          { name: "img", kind: "openai-images", base_url: media.baseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY" },
          { name: "vid", kind: "openai-videos", base_url: media.baseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY" },
        ],
        models: base.models,
      };
    },
  });
  return Object.assign(g, { media });
}

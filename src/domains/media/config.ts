/** The media area's svc.toml section (media.*; docs/media.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const MediaSection = T.Object(
  {
    /** How long a finished video's content stays downloadable (seconds); then it is destroyed, row and receipt kept. */
    video_ttl_secs: T.Integer({ minimum: 60, maximum: 90 * 86_400 }),
    /** How often a running video job is polled at its provider (seconds). */
    video_poll_interval_secs: T.Integer({ minimum: 1, maximum: 600 }),
    /** A job not finished this long after it was created is expired: its hold released, nothing billed (seconds). */
    video_max_job_secs: T.Integer({ minimum: 60, maximum: 7 * 86_400 }),
    /** The largest video content svc accepts from a provider (bytes). */
    video_max_bytes: T.Integer({ minimum: 1024, maximum: 2 * 1024 * 1024 * 1024 }),
    /** response_format "url": how long an image's URL serves it (seconds). */
    image_url_ttl_secs: T.Integer({ minimum: 60, maximum: 7 * 86_400 }),
    /** The public verify routes: requests per minute per client address. */
    verify_per_ip_per_minute: T.Integer({ minimum: 1, maximum: 100_000 }),
    /** The largest asset the verify routes read (bytes of the decoded asset). */
    verify_max_bytes: T.Integer({ minimum: 1024, maximum: 256 * 1024 * 1024 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    media: Static<typeof MediaSection>;
  }
}

export const mediaConfig: ConfigPart = {
  sections: {
    media: {
      schema: MediaSection,
      default: {
        video_ttl_secs: 86_400,
        video_poll_interval_secs: 5,
        video_max_job_secs: 3_600,
        video_max_bytes: 512 * 1024 * 1024,
        image_url_ttl_secs: 3_600,
        verify_per_ip_per_minute: 60,
        verify_max_bytes: 32 * 1024 * 1024,
      },
    },
  },
  env: [{ name: "SVC_MEDIA_VIDEO_TTL_SECS", path: "media.video_ttl_secs", type: "integer" }],
};

/** Agent post's svc.toml section (post.*; docs/post.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";
import { MAX_POSTAGE_MICRO_USD } from "./limits.ts";

export const PostSection = T.Object(
  {
    /** The postage of an account that has not set its own (what senders pay it per message). */
    default_postage_micro_usd: MicroUsd({ maximum: MAX_POSTAGE_MICRO_USD }),
    /** Messages an inbox may hold (deleted ones do not count) before senders get 429 inbox_full. */
    inbox_max_messages: T.Integer({ minimum: 1, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    post: Static<typeof PostSection>;
  }
}

export const postConfig: ConfigPart = {
  sections: { post: { schema: PostSection, default: { default_postage_micro_usd: 10_000, inbox_max_messages: 1_000 } } },
  env: [
    { name: "SVC_POST_DEFAULT_POSTAGE_MICRO_USD", path: "post.default_postage_micro_usd", type: "integer" },
    { name: "SVC_POST_INBOX_MAX_MESSAGES", path: "post.inbox_max_messages", type: "integer" },
  ],
};

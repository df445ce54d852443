/**
 * Agent post's sizes in one place: the schemas (models.ts) state them to the OpenAPI document,
 * the services enforce what a schema cannot. Spec §8: postage at most 1.00 USD, inbox and outbox
 * pages 1-200 (default 50), a thread at most 500 messages. The rest are svc's (docs/post.md "Limits").
 */
import type { LimitRule } from "../../core/envelopes.ts";

/** 1.00 USD (spec §8). */
export const MAX_POSTAGE_MICRO_USD = 1_000_000;

/** 3-32 characters: lowercase letters, digits, "-" and "_", starting with a letter or digit. */
export const HANDLE_PATTERN = "^[a-z0-9][a-z0-9_-]{2,31}$";
export const HANDLE_RULE = "3-32 characters: lowercase letters, digits, - and _, starting with a letter or digit";

export const MAX_SUBJECT_CHARS = 200;
export const MAX_BODY_CHARS = 20_000;
/** Entries on each of the allow and block lists. */
export const MAX_LIST_ENTRIES = 1_000;

export const BOX_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };
/** GET /v1/post/threads/:thread_id returns at most this many messages, oldest first (spec §8). */
export const THREAD_CAP = 500;

export const ACCEPT_POLICIES = ["anyone", "allow_list", "nobody"] as const;
export type AcceptPolicy = (typeof ACCEPT_POLICIES)[number];

/**
 * TypeBox models of the post routes: closed request bodies (an unknown field is refused and
 * named) and the exact shapes served, so the OpenAPI document describes what is served. Sizes
 * come from limits.ts; docs/post.md explains them.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { Address, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;

const Handle = t.String({ pattern: L.HANDLE_PATTERN, error: `must be a handle: ${L.HANDLE_RULE}`, description: `a post handle: ${L.HANDLE_RULE}` });
const Postage = MicroUsd({ maximum: L.MAX_POSTAGE_MICRO_USD, description: `what a sender pays this account per message: integer micro-USD, 0 to ${L.MAX_POSTAGE_MICRO_USD} (1.00 USD)` });
const Accept = t.Union(
  [t.Literal("anyone"), t.Literal("allow_list"), t.Literal("nobody")],
  { error: `must be one of ${L.ACCEPT_POLICIES.join(", ")}`, description: "anyone: every handle not on the block list; allow_list: only handles on the allow list; nobody: no post at all" },
);
const HandleList = (what: string) => t.Array(Handle, { maxItems: L.MAX_LIST_ENTRIES, description: `${what}: at most ${L.MAX_LIST_ENTRIES} handles; replaces the whole list` });

export const SettingsBody = t.Object(
  {
    handle: t.Optional(Handle),
    postage_micro_usd: t.Optional(Postage),
    accept: t.Optional(Accept),
    allow: t.Optional(HandleList("who may write when accept is allow_list")),
    block: t.Optional(HandleList("who may never write (whatever the accept policy)")),
  },
  { ...closed, description: "any subset; a handle is claimed once and cannot be changed" },
);

export const Settings = t.Object(
  {
    handle: Nullable(t.String({ description: "null until the account claims one" })),
    postage_micro_usd: Postage,
    accept: Accept,
    allow: t.Array(t.String(), { description: "sorted" }),
    block: t.Array(t.String(), { description: "sorted" }),
    updated_at: Nullable(t.String({ format: "date-time", description: "null while the deployment's defaults apply" })),
  },
  closed,
);

export const HandleParams = t.Object({ handle: t.String({ minLength: 1, maxLength: 100 }) });

export const PublicHandle = t.Object(
  {
    handle: t.String(),
    accepts: t.Boolean({ description: "false when the account takes no post (accept: nobody); an allow or block list may still refuse a given sender" }),
    postage: t.Object(
      { amount_micro_usd: Postage, currency: t.Literal("USD") },
      { ...closed, description: "what a message to this handle costs the sender (spec §4.1 \"postage\"); the same amount as postage_micro_usd" },
    ),
    postage_micro_usd: Postage,
  },
  closed,
);

export const SendBody = t.Object(
  {
    to: t.String({ pattern: L.HANDLE_PATTERN, error: `must be a handle: ${L.HANDLE_RULE}`, description: "the recipient's handle" }),
    subject: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_SUBJECT_CHARS })),
    body: t.String({ minLength: 1, maxLength: L.MAX_BODY_CHARS, description: `1-${L.MAX_BODY_CHARS} characters; sealed at rest` }),
    in_reply_to: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "a message you sent or received: the new one joins its thread" })),
    max_postage_micro_usd: t.Optional(
      MicroUsd({ maximum: L.MAX_POSTAGE_MICRO_USD, description: "the most you agree to pay; a recipient whose postage is higher answers 409 postage_above_max and nothing is charged" }),
    ),
  },
  closed,
);

export const MessageParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });
export const ThreadParams = t.Object({ thread_id: t.String({ minLength: 1, maxLength: 100 }) });

export const BoxQuery = t.Object({
  limit: t.Optional(t.String({ description: `page size: a whole number from ${L.BOX_LIMIT.min}, default ${L.BOX_LIMIT.default}; above ${L.BOX_LIMIT.max} is clamped to ${L.BOX_LIMIT.max}` })),
  cursor: t.Optional(t.String({ maxLength: 500, description: "opaque: pass back exactly the next_cursor received" })),
});

const Time = t.String({ format: "date-time" });

const messageFields = {
  id: t.String({ description: "pm_…" }),
  thread_id: t.String({ description: "thr_…" }),
  in_reply_to: Nullable(t.String()),
  direction: t.Union([t.Literal("in"), t.Literal("out")], { description: "in: you are the recipient; out: you sent it" }),
  from: t.String({ description: "the sender's handle" }),
  to: t.String({ description: "the recipient's handle" }),
  subject: Nullable(t.String()),
  body: t.String(),
  postage_micro_usd: MicroUsd({ description: "what the sender paid the recipient for this message" }),
  receipt_id: Nullable(t.String({ description: "the sender's receipt of the postage (kind post); null in the recipient's view" })),
  read_at: Nullable(t.String({ format: "date-time", description: "when the recipient first read it; always null in the sender's view" })),
  created_at: Time,
};

export const Message = t.Object(messageFields, closed);

export const SentMessage = t.Object(
  {
    ...messageFields,
    receipt: t.Object(
      { receipt_id: t.String(), receipt: Statement, signature: Signature, signer: Address },
      { ...closed, description: "the signed receipt of the postage (kind post): handles, amounts and sha256 fingerprints of the subject and body, never their text" },
    ),
  },
  closed,
);

const NextCursor = Nullable(t.String({ description: "null: no more pages" }));

export const Inbox = t.Object({ messages: t.Array(Message), next_cursor: NextCursor, unread: t.Integer({ minimum: 0, description: "unread messages in the whole inbox" }) }, closed);
export const Outbox = t.Object({ messages: t.Array(Message), next_cursor: NextCursor }, closed);
export const Thread = t.Object({ messages: t.Array(Message, { maxItems: L.THREAD_CAP, description: `oldest first, at most ${L.THREAD_CAP}` }), thread_id: t.String() }, closed);

export const Deleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

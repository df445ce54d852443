/**
 * /v1/post (spec §4.3 "post", API key with the "post" scope; §4.1 the public handle page).
 * Thin: each route validates, calls one service function and shapes the answer. Rules:
 * settings.ts, send.ts, mail.ts; docs: docs/post.md.
 *
 *   GET  /v1/post/settings                 the account's handle, postage, accept policy, lists
 *   PUT  /v1/post/settings                 any subset {handle?, postage_micro_usd?, accept?, allow?, block?}
 *   POST /v1/post/messages                 {to, subject?, body, in_reply_to?, max_postage_micro_usd?} → 201 with the receipt
 *   GET  /v1/post/inbox                    ?limit=&cursor= → {messages, next_cursor, unread}
 *   GET  /v1/post/outbox                   ?limit=&cursor= → {messages, next_cursor}
 *   GET  /v1/post/messages/:id             sender or recipient only
 *   POST /v1/post/messages/:id/read        recipient only
 *   DELETE /v1/post/messages/:id           from the caller's own box only
 *   GET  /v1/post/threads/:thread_id       {messages, thread_id}, oldest first, at most 500
 *   GET  /v1/post/handles/:handle          public: {handle, accepts, postage {amount_micro_usd, currency}, postage_micro_usd}
 */
import { Elysia } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { BOX_LIMIT } from "./limits.ts";
import { deleteMessage, getMessage, getThread, listBox, readMessage, unreadIn } from "./mail.ts";
import * as M from "./models.ts";
import { sendMessage } from "./send.ts";
import { getSettings, publicHandle, updateSettings } from "./settings.ts";

const tags = ["post"];
const security = [{ apiKey: [] }];

export function postRoutes(ctx: Context) {
  const owned = new Elysia({ prefix: "/v1/post" })
    .use(guards.apiKey(ctx, "post"))
    .get("/settings", ({ principal }) => getSettings(ctx, principal.accountId), {
      response: { 200: M.Settings },
      detail: { summary: "The account's post settings: handle, postage, accept policy, allow and block lists (the deployment's defaults until set)", tags, security },
    })
    .put("/settings", ({ principal, body }) => updateSettings(ctx, principal.accountId, body), {
      body: M.SettingsBody,
      // 409 handle_taken (another account's) or handle_already_claimed (a handle cannot change).
      response: { 200: M.Settings, ...errors(409) },
      detail: { summary: "Set any subset of the post settings; the first PUT with a handle claims it, for good", tags, security },
    })
    .post(
      "/messages",
      async ({ principal, body, set }) => {
        const sent = await sendMessage(ctx, { accountId: principal.accountId, keyId: principal.keyId }, body);
        set.status = 201;
        return sent;
      },
      {
        body: M.SendBody,
        // 402 postage not covered (or a spend cap), 403 post_refused / handle_required, 404 unknown handle or in_reply_to,
        // 409 postage_above_max or the recipient's balance at its limit, 429 inbox_full.
        response: { 201: M.SentMessage, ...errors(402, 404, 409, 429) },
        detail: {
          summary: "Send a message: the sender pays the recipient's postage (a metered post event with a signed receipt); 403 on the recipient's policy, 429 when its inbox is full",
          tags,
          security,
        },
      },
    )
    .get(
      "/inbox",
      ({ principal, query }) => {
        const page = listBox(ctx, "inbox", principal.accountId, { limit: parseLimit(query.limit, BOX_LIMIT), cursor: query.cursor });
        return namedList("messages", page.rows, { next_cursor: page.next_cursor, unread: unreadIn(ctx, principal.accountId) });
      },
      {
      query: M.BoxQuery,
      response: { 200: M.Inbox },
      detail: { summary: "Messages received, newest first, paged by cursor ({messages, next_cursor, unread})", tags, security },
      },
    )
    .get(
      "/outbox",
      ({ principal, query }) => {
        const page = listBox(ctx, "outbox", principal.accountId, { limit: parseLimit(query.limit, BOX_LIMIT), cursor: query.cursor });
        return namedList("messages", page.rows, { next_cursor: page.next_cursor });
      },
      {
      query: M.BoxQuery,
      response: { 200: M.Outbox },
      detail: { summary: "Messages sent, newest first, paged by cursor ({messages, next_cursor})", tags, security },
      },
    )
    .get("/messages/:id", ({ principal, params }) => getMessage(ctx, principal.accountId, params.id), {
      params: M.MessageParams,
      response: { 200: M.Message },
      detail: { summary: "One message, for its sender or its recipient (404 for anyone else, or after that side deleted it)", tags, security },
    })
    .post("/messages/:id/read", ({ principal, params }) => readMessage(ctx, principal.accountId, params.id), {
      params: M.MessageParams,
      response: { 200: M.Message },
      detail: { summary: "Mark a received message read (idempotent: the first read time stands)", tags, security },
    })
    .delete("/messages/:id", ({ principal, params }) => deleteMessage(ctx, principal.accountId, params.id), {
      params: M.MessageParams,
      response: { 200: M.Deleted },
      detail: { summary: "Delete a message from your own box; the other party keeps theirs", tags, security },
    })
    .get("/threads/:thread_id", ({ principal, params }) => namedList("messages", getThread(ctx, principal.accountId, params.thread_id), { thread_id: params.thread_id }), {
      params: M.ThreadParams,
      response: { 200: M.Thread },
      detail: { summary: "A thread's messages you sent or received, oldest first, at most 500 ({messages, thread_id})", tags, security },
    });

  const open = new Elysia({ prefix: "/v1/post/handles" }).use(guards.public(ctx)).get("/:handle", ({ params }) => publicHandle(ctx, params.handle), {
    params: M.HandleParams,
    response: { 200: M.PublicHandle },
    detail: { summary: "Whether a handle takes post, and its postage (404 for an unknown handle)", tags },
  });

  return [owned, open];
}

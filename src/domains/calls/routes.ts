/**
 * /v1/calls (spec §4.3 "Calls", API key with the "records" scope; §4.1 the public page).
 * Thin: each route validates, calls one service function and shapes the answer. Rules:
 * service.ts and anchoring.ts; docs: docs/calls.md.
 *
 *   POST /v1/calls/commit               {text} or {commitment} → 201, with the signed receipt
 *   POST /v1/calls/commit/:id/reveal    {} (mode text) or {text, salt_hex} (mode commitment)
 *   GET  /v1/calls                      {calls, count, cap, trust_model}: every call of the account
 *   GET  /v1/calls/mine                 the same envelope: only the calls the calling key committed
 *   GET  /v1/calls/public/:id           public: commitment, receipt, anchor; text and salt once revealed
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { CALLS_CAP } from "./limits.ts";
import * as M from "./models.ts";
import { commitCall, listCalls, publicCall, revealCall, TRUST_MODEL } from "./service.ts";

const tags = ["calls"];
const security = [{ apiKey: [] }];

const envelope = (calls: ReturnType<typeof listCalls>) => namedList("calls", calls, { count: calls.length, cap: CALLS_CAP, trust_model: TRUST_MODEL });

export function callRoutes(ctx: Context) {
  const owned = new Elysia({ prefix: "/v1/calls" })
    .use(guards.apiKey(ctx, "records"))
    .post(
      "/commit",
      async ({ principal, body, set }) => {
        const call = await commitCall(ctx, { accountId: principal.accountId, keyId: principal.keyId }, body);
        set.status = 201;
        return call;
      },
      {
        body: M.CommitBody,
        // 402 credit or a spend cap (when a price is set), 409 call_limit_reached (500 per account).
        response: { 201: M.Call, ...errors(402, 409) },
        detail: {
          summary: "Commit to a text now, reveal it later: stores sha256(salt || text) with a signed receipt, anchored in svc's next Merkle batch",
          description: "Send {text} (svc makes the salt and holds both sealed until reveal) or {commitment} (you keep text and salt). See docs/calls.md.",
          tags,
          security,
        },
      },
    )
    .post("/commit/:id/reveal", ({ principal, params, body }) => revealCall(ctx, principal.accountId, params.id, body ?? {}), {
      params: M.Params,
      body: M.RevealBody,
      response: { 200: M.Call, ...errors(422) },
      detail: {
        summary: "Reveal a call: returns text and salt_hex so anyone can recompute the commitment (422 commitment_mismatch when a supplied text and salt do not match; idempotent)",
        tags,
        security,
      },
    })
    .get("", ({ principal }) => envelope(listCalls(ctx, principal.accountId, null)), {
      response: { 200: M.CallList },
      detail: { summary: "Every sealed call of the key's account, newest first ({calls, count, cap, trust_model})", tags, security },
    })
    .get("/mine", ({ principal }) => envelope(listCalls(ctx, principal.accountId, principal.keyId)), {
      response: { 200: M.CallList },
      detail: { summary: "The sealed calls the calling API key committed, newest first ({calls, count, cap, trust_model})", tags, security },
    });

  const open = new Elysia({ prefix: "/v1/calls/public" }).use(guards.public(ctx)).get("/:id", ({ params }) => publicCall(ctx, params.id), {
    params: M.Params,
    response: { 200: M.Call },
    detail: { summary: "A sealed call for anyone: commitment, signed receipt and anchor state; text and salt_hex once revealed (404 for an unknown id)", tags },
  });

  return [owned, open];
}

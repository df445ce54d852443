/**
 * /v1/replay (spec §4.4 "Replay", session). Thin: each route validates against a closed schema,
 * calls one service function and shapes the answer. Rules: service.ts and checks.ts; docs:
 * docs/replay.md.
 *
 *   POST   /v1/replay/capsules             {receipt_id | run_id, confirm_seal: true, request, output | output_sha256} → 201
 *   GET    /v1/replay/capsules             {capsules}, newest first, metadata only
 *   GET    /v1/replay/capsules/:id         metadata only
 *   DELETE /v1/replay/capsules/:id         destroys the sealed request; the row stays
 *   POST   /v1/replay/capsules/:id/replay  runs it again (metered) → matches, both receipts
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { createCapsule, destroyCapsule, getCapsule, listCapsules, replayCapsule } from "./service.ts";

const tags = ["replay"];
const security = [{ session: [] }];

export function replayRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/replay/capsules" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const capsule = createCapsule(ctx, principal.accountId, body);
        set.status = 201;
        return capsule;
      },
      {
        body: M.CreateBody,
        // 404 receipt or run unknown (or another account's); 422 not_replayable / receipt_mismatch / ambiguous_run; 409 the per-account cap.
        response: { 201: M.Capsule, ...errors(404, 409, 422) },
        detail: {
          summary: "Seal a chat call's request for replay (requires confirm_seal: true); the request is checked against the call's receipt first",
          description: "The receipt is content-free, so the request comes from you; docs/replay.md lists exactly what is checked against the receipt.",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal }) => namedList("capsules", listCapsules(ctx, principal.accountId)), {
      response: { 200: M.CapsuleList },
      detail: { summary: "The account's capsules, newest first ({capsules}); metadata only, never the messages", tags, security },
    })
    .get("/:id", ({ principal, params }) => getCapsule(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Capsule },
      detail: { summary: "One capsule's metadata: fingerprints, parameters, receipts, last replay", tags, security },
    })
    .delete("/:id", ({ principal, params }) => destroyCapsule(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Capsule },
      detail: { summary: "Destroy the sealed request (idempotent); the metadata row stays and replays are refused from now on", tags, security },
    })
    .post("/:id/replay", ({ principal, params, request }) => replayCapsule(ctx, principal.accountId, params.id, request.signal), {
      params: M.Params,
      // 409 capsule_destroyed; 402 credit; 404 also model_not_found; 429/502/503/504 passed on from the upstream.
      response: { 200: M.ReplayResult, ...errors(402, 409, 429, 502, 503, 504) },
      detail: {
        summary: "Run the sealed request again through the metered pipeline and report whether the output's sha256 matches the original's, with both signed receipts",
        tags,
        security,
      },
    });
}

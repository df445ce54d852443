/**
 * /v1/relays (spec §4.4 "Relays": session routes, like the other account-management areas):
 * create a relay behind a one-time share link, list them, revoke one. Thin: a closed schema
 * checks the body, one service call does the work (rules in service.ts, docs/relays.md).
 *
 *   POST /v1/relays              {objects, name?, pin?, expires_at? | ttl_secs?, max_accesses?, view_only?} → 201 {relay, share_url, secret}
 *   GET  /v1/relays              {relays} newest first, at most 100
 *   POST /v1/relays/:id/revoke   the relay, revoked; its ciphertext destroyed (idempotent)
 */
import { instant } from "../../core/instant.ts";
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { createRelay, listRelays, revokeRelay } from "./service.ts";

const tags = ["relays"];
const security = [{ session: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

/** The schema's pattern says the same; this keeps the check where the value is read. */


export function relayRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/relays" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const created = createRelay(ctx, principal.accountId, {
          name: body.name ?? null,
          objects: body.objects,
          pin: body.pin ?? null,
          expiresAt: body.expires_at === undefined ? null : instant("expires_at", body.expires_at),
          ttlSecs: body.ttl_secs ?? null,
          maxAccesses: body.max_accesses ?? null,
          viewOnly: body.view_only ?? false,
        });
        set.status = 201;
        return created;
      },
      {
        body: M.CreateBody,
        // 409 relay_limit_reached / relay_storage_full; 413 relay_too_large (relays.max_relay_bytes)
        response: { 201: M.CreatedRelay, ...errors(409, 413) },
        ...doc(
          "Create a relay: objects sealed at rest behind a share link (its secret is returned once)",
          "Open it with POST share_url (and {pin} when set). 409 relay_limit_reached past 100 live relays per account, relay_storage_full past relays.max_stored_bytes_per_account; 413 relay_too_large past relays.max_relay_bytes.",
        ),
      },
    )
    .get("", ({ principal }) => namedList("relays", listRelays(ctx, principal.accountId)), {
      response: { 200: M.RelayList },
      ...doc("The account's relays, newest first, at most 100 ({relays: [...]}); never their content"),
    })
    .post("/:id/revoke", ({ principal, params }) => revokeRelay(ctx, principal.accountId, params.id), {
      params: M.RelayParams,
      response: { 200: M.Relay },
      ...doc("Revoke a relay: its link stops working and its ciphertext is destroyed now; the content-free record stays (idempotent)"),
    });
}

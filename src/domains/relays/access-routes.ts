/**
 * /v1/relay-access (spec §4.1, public; the link's secret is the credential, §5 rule 3). Per
 * client address: the public routes' limit, then relays.access_per_ip_per_minute of its own
 * (a pin is short; guessing it is what this bucket and the pin lock slow down). Rules: access.ts.
 *
 *   POST /v1/relay-access/:secret              {pin?} → {objects, access_token, …}; spends one access
 *   POST /v1/relay-access/:secret/objects/:id  {pin? | access_token?} → the object's bytes
 *
 * Expired, revoked, exhausted, locked, wrong pin, unknown secret or object: one identical 404.
 */
import { Elysia, t } from "elysia";
import { rateLimited } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { accessLimiter, fetchObject, openRelay } from "./access.ts";
import * as M from "./models.ts";

const tags = ["relays"];

export function relayAccessRoutes(ctx: Context) {
  const limiter = accessLimiter(ctx);
  const limit = (client: string) => {
    const take = limiter.take(client);
    if (!take.ok) throw rateLimited(take.retryAfterSecs, "too many relay accesses from this address; slow down");
  };
  return new Elysia({ prefix: "/v1/relay-access" })
    .use(guards.public(ctx))
    .post(
      "/:secret",
      ({ principal, params, body }) => {
        limit(principal.client);
        return openRelay(ctx, params.secret, body?.pin);
      },
      {
        params: M.AccessParams,
        body: t.Optional(M.AccessBody),
        response: { 200: M.Opened },
        detail: {
          summary: "Open a relay by its link: spends one access; answers its objects (small text inline) and an access token for fetching them",
          description:
            "404 not_found, with one identical body, for an unknown secret, a wrong or missing pin, and an expired, revoked, exhausted or locked relay. 429 past the per-address limit.",
          tags,
        },
      },
    )
    .post(
      "/:secret/objects/:id",
      ({ principal, params, body }) => {
        limit(principal.client);
        return fetchObject(ctx, { secret: params.secret, objectId: params.id, pin: body?.pin, accessToken: body?.access_token });
      },
      {
        params: M.ObjectParams,
        body: t.Optional(M.ObjectBody),
        detail: {
          summary: "One object's bytes: with the access token from opening (spends nothing), or with the pin (spends one access)",
          description: "A view-only relay serves only image/* and text/* objects (403 relay_view_only otherwise). 404 as for opening.",
          tags,
          responses: M.ObjectResponses,
        },
      },
    );
}

/**
 * /v1/admin/*: operator routes behind the admin token. Mounted only when one is configured
 * (app.ts); the CLI's `svc admin …` calls the same service functions.
 */
import { Elysia, t } from "elysia";
import { Nullable, Sha256Hex } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { setSuspended } from "../accounts/index.ts";
import { addDenied, listDenied, removeDenied } from "./denylist.ts";
import { adminMetrics } from "./metrics.ts";

const Sha256 = Sha256Hex("must be the full sha256 of the payload: 64 hex characters");
const security = [{ admin: [] }];

export function adminRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/admin" })
    .use(guards.admin(ctx))
    .get("/metrics", () => adminMetrics(ctx), {
      detail: { summary: "Paying accounts, spend by window, events by kind, billing_enforced", tags: ["admin"], security },
    })
    .post(
      "/accounts/suspend",
      ({ body }) => {
        const account = setSuspended(ctx, { accountId: body.account_id, suspended: body.suspended, reason: body.reason ?? null, actor: "admin_api" });
        return { account_id: account.id, suspended: account.suspended, suspended_at: account.suspended_at, reason: account.suspended_reason };
      },
      {
        body: t.Object(
          {
            account_id: t.String({ minLength: 1, maxLength: 100 }),
            suspended: t.Boolean(),
            reason: t.Optional(Nullable(t.String({ maxLength: 500 }))),
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Suspend or unsuspend an account", tags: ["admin"], security },
      },
    )
    .post(
      "/denylist",
      ({ body, set }) => {
        const { entry, created } = addDenied(ctx, { sha256: body.sha256, reason: body.reason ?? null, actor: "admin_api" });
        set.status = created ? 201 : 200;
        return entry;
      },
      {
        body: t.Object({ sha256: Sha256, reason: t.Optional(Nullable(t.String({ maxLength: 500 }))) }, { additionalProperties: false }),
        detail: { summary: "Refuse every request body with this sha256", tags: ["admin"], security },
      },
    )
    .get("/denylist", () => listDenied(ctx), { detail: { summary: "List refused payload digests", tags: ["admin"], security } })
    .delete(
      "/denylist/:sha256",
      ({ params }) => {
        removeDenied(ctx, { sha256: params.sha256, actor: "admin_api" });
        return { sha256: params.sha256.toLowerCase(), deleted: true };
      },
      { params: t.Object({ sha256: Sha256 }), detail: { summary: "Stop refusing a payload digest", tags: ["admin"], security } },
    );
}

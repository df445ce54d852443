/**
 * /v1/admin/*: operator routes behind the admin token. Mounted only when one is configured
 * (app.ts); the CLI's `svc admin …` calls the same service functions. Shapes in models.ts.
 */
import { Elysia, t } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { setSuspended } from "../accounts/index.ts";
import { addDenied, listDenied, removeDenied } from "./denylist.ts";
import { adminMetrics } from "./metrics.ts";
import * as M from "./models.ts";

const security = [{ admin: [] }];
const doc = (summary: string) => ({ detail: { summary, tags: ["admin"], security } });

export function adminRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/admin" })
    .use(guards.admin(ctx))
    .get("/metrics", () => adminMetrics(ctx), {
      response: { 200: M.AdminMetrics },
      ...doc("Paying accounts, spend by window, events by kind, billing_enforced"),
    })
    .post(
      "/accounts/suspend",
      ({ body }) => {
        const account = setSuspended(ctx, { accountId: body.account_id, suspended: body.suspended, reason: body.reason ?? null, actor: "admin_api" });
        return { account_id: account.id, suspended: account.suspended, suspended_at: account.suspended_at, reason: account.suspended_reason };
      },
      {
        body: M.SuspendBody,
        // 404: no account with that id (it is in the body, not the path).
        response: { 200: M.Suspension, ...errors(404) },
        ...doc("Suspend or unsuspend an account"),
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
        body: M.DenyBody,
        response: { 201: M.DenyEntryAdded, 200: M.DenyEntryAdded },
        ...doc("Refuse every request body with this sha256"),
      },
    )
    .get("/denylist", () => listDenied(ctx), {
      response: { 200: t.Array(M.DenyEntry, { description: "Refused digests, newest first (bare array)" }) },
      ...doc("List refused payload digests, newest first (bare array)"),
    })
    .delete(
      "/denylist/:sha256",
      ({ params }) => {
        removeDenied(ctx, { sha256: params.sha256, actor: "admin_api" });
        return { sha256: params.sha256.toLowerCase(), deleted: true as const };
      },
      { params: M.DenyParams, response: { 200: M.DenyRemoved }, ...doc("Stop refusing a payload digest") },
    );
}

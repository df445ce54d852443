/**
 * /v1/admin/*: operator routes behind the admin token. Mounted only when one is configured
 * (module.ts); the CLI's `svc admin …` and `svc accounts …` call the same service functions.
 * Shapes in models.ts. The operator's other areas mount their own /v1/admin routes beside these
 * (nodes, inference's providers, backup).
 */
import { Elysia, t } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { setSuspended } from "../accounts/index.ts";
import { accountDetail, adjustAccountCredit, searchAccounts } from "./accounts.ts";
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
    .get("/accounts", ({ query }) => searchAccounts(ctx, query), {
      query: M.AccountsQuery,
      response: { 200: M.AdminAccountList },
      ...doc("Accounts newest first (list object with has_more; page with after=<last id>), searchable by account id or wallet (q, full or its start)"),
    })
    .get("/accounts/:id", ({ params }) => accountDetail(ctx, params.id), {
      params: M.AccountParams,
      response: { 200: M.AdminAccountDetail },
      ...doc("One account: suspension, wallets, credit, spend this month, key counts and its latest 20 ledger entries"),
    })
    .post(
      "/accounts/:id/credit",
      ({ params, body }) => adjustAccountCredit(ctx, params.id, { amount: body.amount_micro_usd, direction: body.direction, reason: body.reason }),
      {
        params: M.AccountParams,
        body: M.CreditBody,
        // 409: a debit above what the account can spend (insufficient_credit), or a grant past the balance limit (balance_limit).
        response: { 200: M.CreditAdjusted, ...errors(409) },
        ...doc("Grant or take credit: a ledger adjustment with its reason, audited as admin_api; a debit never takes more than the account can spend"),
      },
    )
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

/**
 * /v1/nav (spec §2.5; §4.3 API key with the "records" scope; §4.1 the public lines). Thin: each
 * route validates, calls one service function and shapes the answer. Rules: service.ts,
 * valuation.ts; docs: docs/nav.md.
 *
 *   POST /v1/nav/calculate                {asset_id, holdings, liabilities_micro_usd, supply, …} → 201, metered
 *   POST /v1/nav/:asset_id/refresh        {revalue?} → 201, a new version (restated or revalued)
 *   POST /v1/nav/:asset_id/publish        {nav_id?} → the version, published (idempotent, free)
 *   GET  /v1/nav/records                  ?asset_id=&limit= → {records, asset_id, note}: every version, the owner's
 *   GET  /v1/nav/records/:nav_id          one version of the owner's, published or not
 *   GET  /v1/nav/:asset_id                public: the latest published version (?nav_id= one of them)
 *   GET  /v1/nav/:asset_id/history        public: {records, asset_id, note}, published only, newest first
 *   GET  /v1/nav/:asset_id/evidence       public: references only (?nav_id=)
 */
import { Elysia, t } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { HISTORY_LIMIT } from "./limits.ts";
import * as M from "./models.ts";
import {
  calculateNav,
  ownerHistory,
  OWNER_HISTORY_NOTE,
  ownerRecord,
  PUBLIC_HISTORY_NOTE,
  publicEvidence,
  publicHistory,
  publicRecord,
  publishNav,
  refreshNav,
} from "./service.ts";

const tags = ["nav"];
const security = [{ apiKey: [] }];

export function navRoutes(ctx: Context) {
  const owned = new Elysia({ prefix: "/v1/nav" })
    .use(guards.apiKey(ctx, "records"))
    .post(
      "/calculate",
      async ({ principal, body, set }) => {
        const record = await calculateNav(ctx, { accountId: principal.accountId, keyId: principal.keyId }, body);
        set.status = 201;
        return record;
      },
      {
        body: M.CalculateBody,
        // 402 credit or a spend cap; an unreachable source is not an error: the record says UNAVAILABLE.
        response: { 201: M.CalculatedRecord, ...errors(402) },
        detail: {
          summary: "Value a sealed holdings book into a new signed NAV version (metered; the book is never published, only its commitment)",
          description:
            "Every source is retrieved and fingerprinted; figures are integer micro-USD rounded down; supply and price sources are reconciled within tolerance_bps. Status VERIFIED, DISCREPANCY, STALE or UNAVAILABLE (no figures). The same price whatever the status. See docs/nav.md.",
          tags,
          security,
        },
      },
    )
    .post(
      "/:asset_id/refresh",
      async ({ principal, params, body, set }) => {
        const record = await refreshNav(ctx, { accountId: principal.accountId, keyId: principal.keyId }, params.asset_id, body?.revalue ?? false);
        set.status = 201;
        return record;
      },
      {
        params: M.AssetParams,
        body: t.Optional(M.RefreshBody),
        // 409 nothing_to_restate: the latest version is UNAVAILABLE (revalue instead).
        response: { 201: M.RefreshedRecord, ...errors(402, 409) },
        detail: {
          summary: "A new version from the latest: restated (figures carried, supply and freshness observed now: STALE once past freshness) or revalued ({revalue:true})",
          tags,
          security,
        },
      },
    )
    .post("/:asset_id/publish", ({ principal, params, body }) => publishNav(ctx, principal.accountId, params.asset_id, body?.nav_id), {
      params: M.AssetParams,
      body: t.Optional(M.PublishBody),
      // 409 asset_id_taken: another account publishes under this asset id.
      response: { 200: M.NavRecord, ...errors(409) },
      detail: { summary: "Publish a version (default the latest): GET /v1/nav/:asset_id then shows it (idempotent, free)", tags, security },
    })
    .get("/records", ({ principal, query }) => namedList("records", ownerHistory(ctx, principal.accountId, query.asset_id, parseLimit(query.limit, HISTORY_LIMIT)), { asset_id: query.asset_id, note: OWNER_HISTORY_NOTE }), {
      query: M.OwnerHistoryQuery,
      // 404 when the account has no version of the asset (another account's alike).
      response: { 200: M.History, ...errors(404) },
      detail: { summary: "Every version of one of the account's assets, published or not, newest first ({records, asset_id, note})", tags, security },
    })
    .get("/records/:nav_id", ({ principal, params }) => ownerRecord(ctx, principal.accountId, params.nav_id), {
      params: M.NavParams,
      response: { 200: M.NavRecord },
      detail: { summary: "One version of the account's, published or not", tags, security },
    });

  const open = new Elysia({ prefix: "/v1/nav" })
    .use(guards.public(ctx))
    .get("/:asset_id", ({ params, query }) => publicRecord(ctx, params.asset_id, query.nav_id), {
      params: M.AssetParams,
      query: M.RecordQuery,
      response: { 200: M.NavRecord },
      detail: { summary: "The asset's latest published NAV record, signed (404 alike for an unknown, never calculated or unpublished asset)", tags },
    })
    .get(
      "/:asset_id/history",
      ({ params, query }) => namedList("records", publicHistory(ctx, params.asset_id, parseLimit(query.limit, HISTORY_LIMIT)), { asset_id: params.asset_id, note: PUBLIC_HISTORY_NOTE }),
      {
        params: M.AssetParams,
        query: M.HistoryQuery,
        response: { 200: M.History },
        detail: { summary: "The asset's published NAV records, newest first ({records, asset_id, note}; limit 1-200, default 50)", tags },
      },
    )
    .get("/:asset_id/evidence", ({ params, query }) => publicEvidence(ctx, params.asset_id, query.nav_id), {
      params: M.AssetParams,
      query: M.RecordQuery,
      response: { 200: M.Evidence },
      detail: { summary: "Evidence references of a published NAV record: source kind, label, retrieval time, sha256 — never a price, quantity or value", tags },
    });

  return [owned, open];
}

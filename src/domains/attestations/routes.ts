/**
 * /v1/attestations (spec §4.3 "Attestations, NAV, benchmarks", API key with the "records"
 * scope) and the public GET /v1/assets/:asset_id/verification (§4.1). Thin: each route
 * validates, calls one service function and shapes the answer. Rules: service.ts; docs:
 * docs/attestations.md.
 *
 *   POST /v1/attestations/check                 {asset_id, subject_ref, claim, sources, public?} → 201, metered
 *   GET  /v1/attestations/:asset_id             the latest version (free)
 *   GET  /v1/attestations/:asset_id/history     ?limit= → {versions, asset_id, subject_ref, note, disclaimer}
 *   GET  /v1/attestations/:asset_id/evidence    ?include_body=true&seq= → references (and bytes)
 *   POST /v1/attestations/:asset_id/refresh     the same sources again → 201, the next version, metered
 *   GET  /v1/assets/:asset_id/verification      public: the latest version while it is public (404 otherwise)
 */
import { Elysia } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { prepareDefinition } from "./definition.ts";
import { HISTORY_LIMIT } from "./limits.ts";
import * as M from "./models.ts";
import { attestationEvidence, attestationHistory, checkAsset, getAttestation, publicVerification, refreshAsset } from "./service.ts";

const tags = ["attestations"];
const security = [{ apiKey: [] }];

/** ?limit= for the history: default 50, and not clamped (spec §8): above the ceiling is refused, not cut. */
function historyLimit(raw: string | undefined): number {
  if (raw === undefined || raw === "") return HISTORY_LIMIT.default;
  if (!/^\d+$/.test(raw)) throw invalidField("limit", `must be a whole number between ${HISTORY_LIMIT.min} and ${HISTORY_LIMIT.max}`);
  const n = Number(raw);
  if (n < HISTORY_LIMIT.min || n > HISTORY_LIMIT.max) throw invalidField("limit", `must be between ${HISTORY_LIMIT.min} and ${HISTORY_LIMIT.max} (this list is not clamped)`);
  return n;
}

export function attestationsRoutes(ctx: Context) {
  const owned = new Elysia({ prefix: "/v1/attestations" })
    .use(guards.apiKey(ctx, "records"))
    .post(
      "/check",
      async ({ principal, body, set }) => {
        const caller = { accountId: principal.accountId, keyId: principal.keyId };
        const record = await checkAsset(ctx, caller, prepareDefinition(ctx, caller.accountId, body));
        set.status = 201;
        return record;
      },
      {
        body: M.CheckBody,
        // 402 credit or a spend cap; 409 asset_id_taken (a public asset_id another account published).
        response: { 201: M.AttestationRecord, ...errors(402, 409) },
        detail: {
          summary: "Check an asset's claim against its evidence sources: a signed version with an explicit status (VERIFIED, DISCREPANCY, UNAVAILABLE), metered at one price whatever the outcome",
          description: "Every source is retrieved once; a source that does not answer makes the status UNAVAILABLE with no figures (never a guess). See docs/attestations.md for the status rules.",
          tags,
          security,
        },
      },
    )
    .get("/:asset_id", ({ principal, params }) => getAttestation(ctx, principal.accountId, params.asset_id), {
      params: M.Params,
      response: { 200: M.AttestationRecord },
      detail: { summary: "An asset's latest version (free): a VERIFIED version read after its freshness window reports STALE, status_at_check keeps the original", tags, security },
    })
    .get("/:asset_id/history", ({ principal, params, query }) => attestationHistory(ctx, principal.accountId, params.asset_id, historyLimit(query.limit)), {
      params: M.Params,
      query: M.HistoryQuery,
      response: { 200: M.History },
      detail: { summary: "An asset's versions, newest first ({versions, asset_id, subject_ref, note, disclaimer}); ?limit= 1-200, default 50, not clamped", tags, security },
    })
    .get(
      "/:asset_id/evidence",
      ({ principal, params, query }) =>
        attestationEvidence(ctx, principal.accountId, params.asset_id, { seq: query.seq === undefined ? undefined : Number(query.seq), includeBody: query.include_body === "true" }),
      {
        params: M.Params,
        query: M.EvidenceQuery,
        response: { 200: M.EvidenceList },
        detail: { summary: "A version's evidence references (source kind and ref, label, retrieval time, sha256); ?include_body=true adds the exact bytes, base64", tags, security },
      },
    )
    .post(
      "/:asset_id/refresh",
      async ({ principal, params, set }) => {
        const record = await refreshAsset(ctx, { accountId: principal.accountId, keyId: principal.keyId }, params.asset_id);
        set.status = 201;
        return record;
      },
      {
        params: M.Params,
        response: { 201: M.AttestationRecord, ...errors(402) },
        detail: {
          summary: "Retrieve the same sources again: the next version (seq + 1) supersedes the last, which is kept; a status change fires an attestation.* event. Metered like a check",
          tags,
          security,
        },
      },
    );

  const open = new Elysia({ prefix: "/v1/assets" }).use(guards.public(ctx)).get("/:asset_id/verification", ({ params }) => publicVerification(ctx, params.asset_id), {
    params: M.Params,
    response: { 200: M.PublicVerification },
    detail: {
      summary: "Public, unauthenticated: an asset's latest attestation while its owner publishes it; 404 when unknown, private, or drawing on an issuer declaration or sealed data",
      tags,
    },
  });

  return [owned, open];
}

/**
 * The NAV area's rules (docs/nav.md): calculate (metered; the book sealed, only its commitment
 * published), refresh (a new version: a restatement, or a revaluation of the same sealed book),
 * publish (free, idempotent, per version), and the reads — the owner's, which see every version,
 * and the public's, which see published versions only and answer one 404 for an asset id that is
 * unknown, never calculated or never published.
 *
 * Every version is a new row, signed once (EIP-191 over base64url canonical JSON of the §2.5
 * payload) and never updated except for published_at. methodology_version names the rules its
 * figures were computed under; a restatement carries its version's figures and methodology, and
 * only a revaluation computes again — under the methodology current at that time.
 */
import { instant } from "../../core/instant.ts";
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { meterWork } from "../../core/metered-work.ts";
import type { Settlement } from "../../core/meter.ts";
import { sha256Hex } from "../../core/secrets.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { bookCommitment, openPlan, type Plan, planOf, sealPlan } from "./book.ts";
import type { CalculateBody, CalculatedRecord, Evidence, NavRecord, NavStatus, Payload, RefreshedRecord } from "./models.ts";
import { historyOf, insertRecord, latestOf, markPublished, type NavRow, nextSeq, publicOwnerOf, recordOf, claimPublicAsset } from "./store.ts";
import { type CitedRef, restate, statusOf, type Valuation, valueBook } from "./valuation.ts";

export type NavRecordView = Static<typeof NavRecord>;
export type PayloadView = Static<typeof Payload>;

/** The rules the figures are computed under (docs/nav.md "Method"); a change of rules is a new version, never applied to old records. */
export const METHODOLOGY_VERSION = "nav-method-1";

const TRUST_MODEL =
  "svc retrieved each cited source at retrieved_at (the sha256 is of the bytes it answered) and computed the figures from them and the owner's sealed book, which it does not disclose; you trust svc's retrieval and arithmetic, and the owner's book, which book_commitment binds.";

export const PUBLIC_HISTORY_NOTE =
  "Published versions only, newest first; a seq missing here was never published. Each record is signed: check it with POST /v1/receipts/verify, and compare expires_at with the time you read it.";
export const OWNER_HISTORY_NOTE = "Every version of the asset, published or not, newest first; published_at is null until POST /v1/nav/:asset_id/publish.";
export const EVIDENCE_NOTE = "References only: where each figure came from, when, and the sha256 of the bytes retrieved. Prices, quantities and values are never shown.";

export interface NavCaller {
  accountId: string;
  keyId: string;
}

const verifierVersion = (ctx: Context) => `svc/${ctx.version}`;

const verifyText = (ctx: Context) =>
  `POST ${ctx.config.public_url}/v1/receipts/verify with {"receipt": receipt, "signature": signature}, or recover the EIP-191 signer of the receipt string with any Ethereum library and compare it with GET ${ctx.config.public_url}/v1/receipts/pubkey; base64url-decode the receipt to read the payload (docs/nav.md).`;

const decode = (statement: string): PayloadView => JSON.parse(Buffer.from(statement, "base64url").toString("utf8")) as PayloadView;

function view(ctx: Context, row: NavRow): NavRecordView {
  return {
    nav_id: row.id,
    asset_id: row.asset_id,
    seq: row.seq,
    status: row.status as NavStatus,
    published_at: row.published_at === null ? null : isoTime(row.published_at),
    created_at: isoTime(row.created_at),
    receipt: row.statement,
    signature: row.signature,
    signer: row.signer,
    payload: decode(row.statement),
    verify: verifyText(ctx),
  };
}

interface Stamp {
  valuationAt: number;
  methodology: string;
}

/** Builds the §2.5 payload of a new version, signs it and inserts it; the version number is taken inside the transaction. */
function writeVersion(ctx: Context, caller: NavCaller, navId: string, assetId: string, plan: Plan, v: Valuation, stamp: Stamp): NavRow {
  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    const expiresAt = stamp.valuationAt + plan.max_age_secs * 1000;
    const fresh = now <= expiresAt;
    const status = statusOf(v, fresh);
    const reasons = fresh ? v.reasons : [...v.reasons, `the valuation of ${isoTime(stamp.valuationAt)} is older than max_age_secs (${plan.max_age_secs}); it expired at ${isoTime(expiresAt)}`];
    const seq = nextSeq(ctx, caller.accountId, assetId);
    const f = v.figures;
    const payload: PayloadView = {
      v: 1,
      type: "nav-record",
      nav_id: navId,
      asset_id: assetId,
      seq,
      status,
      gross_asset_value_micro_usd: f?.gross ?? null,
      liabilities_micro_usd: f?.liabilities ?? null,
      total_nav_micro_usd: f?.total ?? null,
      nav_per_unit_micro_usd: f?.perUnit ?? null,
      supply_micro_units: f?.supply ?? null,
      unit_scale: plan.unit_scale,
      rounding: "floor",
      valuation_timestamp: isoTime(stamp.valuationAt),
      calculation_timestamp: isoTime(now),
      methodology_version: stamp.methodology,
      verifier_version: verifierVersion(ctx),
      expires_at: isoTime(expiresAt),
      freshness: { age_secs: Math.max(0, Math.floor((now - stamp.valuationAt) / 1000)), max_age_secs: plan.max_age_secs, fresh },
      reconciliation: v.reconciliation,
      evidence_references: v.references.map((r) => ({ source_kind: r.source_kind, source_ref: r.source_ref, retrieved_at: r.retrieved_at, content_sha256: r.content_sha256 })),
      reasons,
      book_commitment: bookCommitment(plan),
      privacy_mode: "standard",
      trust_model: TRUST_MODEL,
    };
    const signed = signStatement(ctx.signer, payload);
    const row: NavRow = {
      id: navId,
      account_id: caller.accountId,
      key_id: caller.keyId,
      asset_id: assetId,
      seq,
      status,
      statement: signed.statement,
      signature: signed.signature,
      signer: signed.signer,
      evidence: JSON.stringify(v.references),
      book_sealed: sealPlan(ctx, caller.accountId, navId, plan),
      created_at: now,
      published_at: null,
    };
    insertRecord(ctx, row);
    return row;
  });
}

/** What the work's usage receipt states: counts, the status, and the record's fingerprints (never a figure of the book). */
function receiptUnits(row: NavRow, plan: Plan, work: "calculate" | "restate" | "revalue") {
  return {
    work,
    status: row.status,
    seq: row.seq,
    holdings: plan.holdings.length,
    attestations: { nav: { nav_id: row.id, asset_id: row.asset_id, book_commitment: bookCommitment(plan), record_sha256: sha256Hex(row.statement) } },
  };
}

const charge = (s: Settlement) => ({ cost_micro_usd: s.cost, receipt_id: s.receipt?.id ?? null });

async function meteredVersion(ctx: Context, caller: NavCaller, assetId: string, plan: Plan, work: "calculate" | "restate" | "revalue", value: () => Promise<{ v: Valuation; stamp: Stamp }>) {
  const navId = newId("nav");
  const price = work === "restate" ? ctx.config.nav.refresh_price_micro_usd : ctx.config.nav.calculate_price_micro_usd;
  return meterWork(ctx.meter, ctx.log, { accountId: caller.accountId, keyId: caller.keyId, price, kind: "nav", resource: navId }, async () => {
    const { v, stamp } = await value();
    const row = writeVersion(ctx, caller, navId, assetId, plan, v, stamp);
    return { result: row, status: row.status, units: receiptUnits(row, plan, work) };
  });
}

function valuationTime(ctx: Context, text: string | undefined): number | null {
  if (text === undefined) return null;
  const at = instant("valuation_timestamp", text);
  if (at > ctx.clock.now()) throw invalidField("valuation_timestamp", "must not be in the future");
  return at;
}

/** POST /v1/nav/calculate: a new version of the asset, valued now from the book and its sources. */
export async function calculateNav(ctx: Context, caller: NavCaller, body: Static<typeof CalculateBody>): Promise<Static<typeof CalculatedRecord>> {
  const plan = planOf(ctx, caller.accountId, body);
  const given = valuationTime(ctx, body.valuation_timestamp);
  const { result, settlement } = await meteredVersion(ctx, caller, body.asset_id, plan, "calculate", async () => {
    const v = await valueBook(ctx, caller.accountId, plan);
    return { v, stamp: { valuationAt: given ?? ctx.clock.now(), methodology: METHODOLOGY_VERSION } };
  });
  return { ...view(ctx, result), book_salt_hex: plan.salt_hex, charge: charge(settlement) };
}

function latestOwned(ctx: Context, accountId: string, assetId: string): NavRow {
  const row = latestOf(ctx, accountId, assetId);
  if (!row) throw notFound("nav record");
  return row;
}

/**
 * POST /v1/nav/:asset_id/refresh: a new version of the account's asset from its latest version.
 * Restatement (default): that version's figures, price check and methodology carried, supply
 * observed again (when the book names an on-chain source), freshness judged now — STALE once the
 * valuation is older than max_age_secs. Revaluation: the same sealed book valued again now.
 */
export async function refreshNav(ctx: Context, caller: NavCaller, assetId: string, revalue: boolean): Promise<Static<typeof RefreshedRecord>> {
  const latest = latestOwned(ctx, caller.accountId, assetId);
  const plan = openPlan(ctx, caller.accountId, latest.id, latest.book_sealed);
  if (revalue) {
    const { result, settlement } = await meteredVersion(ctx, caller, assetId, plan, "revalue", async () => ({
      v: await valueBook(ctx, caller.accountId, plan),
      stamp: { valuationAt: ctx.clock.now(), methodology: METHODOLOGY_VERSION },
    }));
    return { ...view(ctx, result), charge: charge(settlement) };
  }
  const prev = decode(latest.statement);
  if (prev.gross_asset_value_micro_usd === null) {
    throw new ApiError(409, "nothing_to_restate", `version ${latest.seq} (${latest.id}) is ${latest.status} and states no figures; value the book again with {"revalue": true}`);
  }
  const carried = {
    figures: {
      gross: prev.gross_asset_value_micro_usd,
      liabilities: prev.liabilities_micro_usd!,
      total: prev.total_nav_micro_usd!,
      perUnit: prev.nav_per_unit_micro_usd!,
      supply: prev.supply_micro_units!,
    },
    reconciliation: prev.reconciliation,
    references: JSON.parse(latest.evidence) as CitedRef[],
    // restate() keeps only the price findings among them: supply and freshness are judged again now.
    reasons: prev.reasons,
  };
  const { result, settlement } = await meteredVersion(ctx, caller, assetId, plan, "restate", async () => ({
    v: await restate(ctx, caller.accountId, plan, carried),
    stamp: { valuationAt: Date.parse(prev.valuation_timestamp), methodology: prev.methodology_version },
  }));
  return { ...view(ctx, result), charge: charge(settlement) };
}

/**
 * POST /v1/nav/:asset_id/publish: publishes one version (the latest, or nav_id). Idempotent: a
 * published version keeps its first published_at. The first account to publish an asset id holds
 * it in the public namespace; another account's publish of the same id is 409 asset_id_taken.
 */
export function publishNav(ctx: Context, accountId: string, assetId: string, navId: string | undefined): NavRecordView {
  return ctx.tx.run(() => {
    const row = navId === undefined ? latestOf(ctx, accountId, assetId) : recordOf(ctx, accountId, navId);
    if (!row || row.asset_id !== assetId) throw notFound("nav record");
    const holder = publicOwnerOf(ctx, assetId);
    if (holder !== null && holder !== accountId) {
      throw new ApiError(409, "asset_id_taken", `another account publishes NAV records under the asset id "${assetId}"; public asset ids are unique — calculate under another asset_id to publish`, {
        param: "asset_id",
      });
    }
    const now = ctx.clock.now();
    claimPublicAsset(ctx, assetId, accountId, now);
    markPublished(ctx, row.id, now);
    return view(ctx, recordOf(ctx, accountId, row.id)!);
  });
}

/** The owner's version, published or not (another account's id answers the same 404 as an unknown one). */
export function ownerRecord(ctx: Context, accountId: string, navId: string): NavRecordView {
  const row = recordOf(ctx, accountId, navId);
  if (!row) throw notFound("nav record");
  return view(ctx, row);
}

export function ownerHistory(ctx: Context, accountId: string, assetId: string, limit: number): NavRecordView[] {
  const rows = historyOf(ctx, accountId, assetId, limit, false);
  if (!rows.length) throw notFound("nav record");
  return rows.map((r) => view(ctx, r));
}

/** The published version the public asks for; one 404 for an unknown, never calculated or never published asset or version. */
function publishedRow(ctx: Context, assetId: string, navId: string | undefined): NavRow {
  const owner = publicOwnerOf(ctx, assetId);
  const row = owner === null ? null : navId === undefined ? (historyOf(ctx, owner, assetId, 1, true)[0] ?? null) : recordOf(ctx, owner, navId);
  if (!row || row.asset_id !== assetId || row.published_at === null) throw notFound("nav record");
  return row;
}

export const publicRecord = (ctx: Context, assetId: string, navId: string | undefined): NavRecordView => view(ctx, publishedRow(ctx, assetId, navId));

export function publicHistory(ctx: Context, assetId: string, limit: number): NavRecordView[] {
  publishedRow(ctx, assetId, undefined);
  return historyOf(ctx, publicOwnerOf(ctx, assetId)!, assetId, limit, true).map((r) => view(ctx, r));
}

export function publicEvidence(ctx: Context, assetId: string, navId: string | undefined): Static<typeof Evidence> {
  const row = publishedRow(ctx, assetId, navId);
  const refs = JSON.parse(row.evidence) as CitedRef[];
  return {
    asset_id: row.asset_id,
    nav_id: row.id,
    seq: row.seq,
    book_commitment: decode(row.statement).book_commitment,
    references: refs.map((r) => ({ source_kind: r.source_kind, source_ref: r.source_ref, label: r.label, retrieved_at: r.retrieved_at, content_sha256: r.content_sha256 })),
    note: EVIDENCE_NOTE,
  };
}

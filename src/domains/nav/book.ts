/**
 * The holdings book and what is kept of a calculation: the book as the owner sent it (positions,
 * liabilities, reported supply), its sources as the evidence area stores them (credentials sealed),
 * and the parameters — sealed whole in each version's row, so a refresh can restate or revalue it
 * and nothing of it is ever served. Only book_commitment is published:
 *
 *   book_commitment = sha256( salt (32 bytes) ‖ UTF-8 canonical JSON of
 *     {v: 1, holdings: [{instrument, quantity}], liabilities_micro_usd, reported_supply_micro_units} )
 *
 * The salt keeps a small book from being guessed back from its commitment (one position of a known
 * instrument has few plausible quantities); it is returned to the owner once, who can then prove
 * the book to whoever they choose. A revaluation of the same book keeps the salt, so an unchanged
 * book shows an unchanged commitment across versions.
 */
import { randomBytes } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import { canonicalJson } from "../../core/canonical-json.ts";
import { invalidField } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { decimalText, type EvidenceSourceInput, prepareSource, type StoredSource } from "../evidence/index.ts";
import * as L from "./limits.ts";
import type { CalculateBody } from "./models.ts";

export interface Plan {
  v: 1;
  salt_hex: string;
  holdings: { instrument: string; quantity: string; price_sources: StoredSource[] }[];
  liabilities_micro_usd: number;
  reported_supply_micro_units: number;
  onchain: StoredSource | null;
  supporting: StoredSource[];
  unit_scale: number;
  tolerance_bps: number;
  max_age_secs: number;
}

export const DEFAULT_TOLERANCE_BPS = 50;
export const DEFAULT_MAX_AGE_SECS = 86_400;

type Source = Static<typeof EvidenceSourceInput>;

function source(ctx: Context, accountId: string, input: Source, field: string, kinds: readonly string[]): StoredSource {
  if (!kinds.includes(input.kind)) throw invalidField(`${field}.kind`, `must be ${kinds.join(" or ")} here`);
  return prepareSource(ctx, accountId, input, field);
}

/** Checks the body's sources (kinds, fields, URLs) and seals their credentials; throws 400 naming the field. */
export function planOf(ctx: Context, accountId: string, body: Static<typeof CalculateBody>): Plan {
  if ((L.RESERVED_ASSET_IDS as readonly string[]).includes(body.asset_id)) throw invalidField("asset_id", `"${body.asset_id}" is a path segment of /v1/nav and cannot name an asset`);
  return {
    v: 1,
    salt_hex: randomBytes(32).toString("hex"),
    holdings: body.holdings.map((h, i) => ({
      instrument: h.instrument,
      quantity: decimalText(h.quantity)!,
      price_sources: h.price_sources.map((s, j) => source(ctx, accountId, s, `holdings[${i}].price_sources[${j}]`, ["price"])),
    })),
    liabilities_micro_usd: body.liabilities_micro_usd,
    reported_supply_micro_units: body.supply.reported_supply_micro_units,
    onchain: body.supply.onchain ? source(ctx, accountId, body.supply.onchain, "supply.onchain", ["erc20_supply"]) : null,
    supporting: (body.supporting_sources ?? []).map((s, i) => source(ctx, accountId, s, `supporting_sources[${i}]`, ["custodian", "third_party_attestation"])),
    unit_scale: body.unit_scale ?? L.DEFAULT_UNIT_SCALE,
    tolerance_bps: body.tolerance_bps ?? DEFAULT_TOLERANCE_BPS,
    max_age_secs: body.max_age_secs ?? DEFAULT_MAX_AGE_SECS,
  };
}

/** The committed form of the book: positions and the owner's own figures, no sources or parameters. */
export const committedBook = (plan: Plan) => ({
  v: 1,
  holdings: plan.holdings.map((h) => ({ instrument: h.instrument, quantity: h.quantity })),
  liabilities_micro_usd: plan.liabilities_micro_usd,
  reported_supply_micro_units: plan.reported_supply_micro_units,
});

export const bookCommitment = (plan: Plan): string =>
  sha256Hex(Buffer.concat([Buffer.from(plan.salt_hex, "hex"), Buffer.from(canonicalJson(committedBook(plan)), "utf8")]));

const aad = (accountId: string, navId: string) => `nav-book:${accountId}:${navId}`;

export const sealPlan = (ctx: Context, accountId: string, navId: string, plan: Plan): string => ctx.sealer.seal(JSON.stringify(plan), aad(accountId, navId));

export const openPlan = (ctx: Context, accountId: string, navId: string, sealed: string): Plan => JSON.parse(ctx.sealer.openText(sealed, aad(accountId, navId))) as Plan;

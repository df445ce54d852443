/**
 * The shapes served (models.ts) built from the rows (store.ts): the owner's plan, the
 * attester's and the beneficiary's narrower views. Wallets are shown EIP-55 checksummed.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import type { Context } from "../../context.ts";
import { primaryWallet } from "../auth/index.ts";
import { HISTORY_SHOWN } from "./limits.ts";
import type { AttestingPlan, Claim, Plan, PlanDetail } from "./models.ts";
import {
  attestersOf,
  beneficiariesOf,
  type BeneficiaryRow,
  confirmationsOf,
  historyOf,
  holdUntil,
  type ObjectRow,
  objectsOf,
  type PlanRow,
  warningEndsAt,
} from "./store.ts";

export type PlanView = Static<typeof Plan>;
export type PlanDetailView = Static<typeof PlanDetail>;
export type AttestingView = Static<typeof AttestingPlan>;
export type ClaimView = Static<typeof Claim>;

const time = (ms: number | null): string | null => (ms === null ? null : isoTime(ms));
const wallet = (w: string | null): string | null => (w === null ? null : toChecksumAddress(w));

export const objectMeta = (o: ObjectRow) => ({ id: o.id, name: o.name, bytes: o.bytes });

export function planView(ctx: Context, p: PlanRow): PlanView {
  const confirmed = new Set(confirmationsOf(ctx, p.id).map((c) => c.wallet));
  return {
    id: p.id,
    name: p.name,
    status: p.status,
    checkin_interval_s: p.checkin_interval_s,
    warning_period_s: p.warning_period_s,
    last_checkin_at: isoTime(p.last_checkin_at),
    deadline_at: isoTime(p.deadline_at),
    warning_started_at: time(p.warning_started_at),
    warning_ends_at: time(warningEndsAt(p)),
    hold_until: p.status === "warning" ? time(holdUntil(p)) : null,
    released_at: time(p.released_at),
    release_reason: p.release_reason,
    claimed_at: time(p.claimed_at),
    cancelled_at: time(p.cancelled_at),
    attesters: attestersOf(ctx, p.id).map((w) => ({ wallet: toChecksumAddress(w), confirmed: confirmed.has(w) })),
    attesters_required: p.attesters_required,
    confirmations: confirmed.size,
    max_hold_s: p.max_hold_s,
    beneficiaries: beneficiariesOf(ctx, p.id).map((b) => ({
      id: b.id,
      label: b.label,
      wallet: wallet(b.wallet),
      claimed_at: time(b.claimed_at),
      link_active: b.token_sha256 !== null,
    })),
    objects: objectsOf(ctx, p.id).map(objectMeta),
    content_bytes: p.content_bytes,
    content_available: p.status !== "cancelled",
    content_updated_at: time(p.content_updated_at),
    created_at: isoTime(p.created_at),
  };
}

export function planDetailView(ctx: Context, p: PlanRow): PlanDetailView {
  return { ...planView(ctx, p), history: historyOf(ctx, p.id, HISTORY_SHOWN).map((h) => ({ at: isoTime(h.at), event: h.event, detail: h.detail })) };
}

/** What an attester sees: the timer and the brake, never the beneficiaries or the content. */
export function attestingView(ctx: Context, p: PlanRow, accountId: string): AttestingView {
  const confirmations = confirmationsOf(ctx, p.id);
  const mine = confirmations.find((c) => c.account_id === accountId) ?? null;
  return {
    id: p.id,
    name: p.name,
    owner_wallet: primaryWallet(ctx, p.account_id),
    status: p.status,
    deadline_at: isoTime(p.deadline_at),
    warning_started_at: time(p.warning_started_at),
    warning_ends_at: time(warningEndsAt(p)),
    hold_until: p.status === "warning" ? time(holdUntil(p)) : null,
    attesters_required: p.attesters_required,
    confirmations: confirmations.length,
    confirmed_by_you: mine !== null,
    confirmed_at: time(mine?.confirmed_at ?? null),
  };
}

export function claimView(ctx: Context, slot: BeneficiaryRow & { plan_name: string; released_at: number }, accountId: string): ClaimView {
  const opened = slot.claimed_by_account === accountId;
  return {
    plan_id: slot.plan_id,
    plan_name: slot.plan_name,
    beneficiary_id: slot.id,
    status: slot.claimed_at === null ? "released" : "claimed",
    wallet_required: slot.wallet !== null,
    released_at: isoTime(slot.released_at),
    claimed_at: time(slot.claimed_at),
    objects: opened ? objectsOf(ctx, slot.plan_id).filter((o) => o.sealed !== null).map(objectMeta) : [],
  };
}

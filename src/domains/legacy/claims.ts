/**
 * Beneficiaries (docs/legacy.md "Claiming"): the public claim link, the caller's claims, opening
 * a released plan once, and fetching its objects.
 *
 * - A beneficiary with a wallet opens the plan from a session of the account holding that wallet
 *   (signing in with it is the wallet proof); the claim token alone is not enough
 *   (403 wallet_required). A beneficiary without a wallet opens it from any session by
 *   presenting the claim token; the account that opened it is then the one that reads it.
 * - Each beneficiary opens once (409 legacy_already_claimed after): a conditional UPDATE, so
 *   two racing opens get one answer each, never two successes. The plan moves released →
 *   claimed at the first open (the content has left svc's hands); the other beneficiaries may
 *   still open theirs.
 * - An unknown token and a cancelled plan's token answer one identical 404; so do plans the
 *   caller is no beneficiary of.
 */
import { isoTime } from "../../core/clock.ts";
import { conflict, forbidden, notFound } from "../../core/errors.ts";
import { digestsEqual, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { walletAddressesOf } from "../auth/index.ts";
import { LIST_CAP } from "./limits.ts";
import { beneficiariesOf, beneficiaryByToken, type BeneficiaryRow, claimSlotsOf, objectAad, objectsOf, planById, recordHistory } from "./store.ts";
import { claimView, type ClaimView, objectMeta } from "./views.ts";

const linkGone = () => notFound("claim link");
const planGone = () => notFound("legacy plan");

export function claimLink(ctx: Context, token: string): { plan_name: string; wallet_required: boolean; status: "waiting" | "released" | "claimed" } {
  const b = beneficiaryByToken(ctx, sha256Hex(token));
  const plan = b ? planById(ctx, b.plan_id) : null;
  if (!b || !plan || plan.status === "cancelled") throw linkGone();
  const status = b.claimed_at !== null ? "claimed" : plan.status === "released" || plan.status === "claimed" ? "released" : "waiting";
  return { plan_name: plan.name, wallet_required: b.wallet !== null, status };
}

export function listClaims(ctx: Context, accountId: string): ClaimView[] {
  return claimSlotsOf(ctx, accountId, walletAddressesOf(ctx, accountId), LIST_CAP).map((s) => claimView(ctx, s, accountId));
}

/** The beneficiary slot the caller opens as: by token, or by one of the caller's wallets (an unopened slot first). */
function slotFor(ctx: Context, accountId: string, beneficiaries: BeneficiaryRow[], token: string | undefined): BeneficiaryRow {
  const mine = new Set(walletAddressesOf(ctx, accountId));
  if (token !== undefined) {
    const digest = sha256Hex(token);
    const b = beneficiaries.find((x) => x.token_sha256 !== null && digestsEqual(x.token_sha256, digest));
    if (!b) throw planGone();
    if (b.wallet !== null && !mine.has(b.wallet)) {
      throw forbidden("wallet_required", "this claim is bound to a wallet: open it signed in with that wallet (link it to your account with POST /v1/auth/wallets)");
    }
    return b;
  }
  const candidates = beneficiaries.filter((b) => (b.wallet !== null && mine.has(b.wallet)) || b.claimed_by_account === accountId);
  const slot = candidates.find((b) => b.claimed_at === null) ?? candidates[0];
  if (!slot) throw planGone();
  return slot;
}

export interface OpenedClaim {
  plan_id: string;
  plan_name: string;
  beneficiary_id: string;
  claimed_at: string;
  objects: { id: string; name: string; bytes: number }[];
}

export function openClaim(ctx: Context, accountId: string, planId: string, token: string | undefined): OpenedClaim {
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const plan = planById(ctx, planId);
    if (!plan || plan.status === "cancelled") throw planGone();
    const slot = slotFor(ctx, accountId, beneficiariesOf(ctx, plan.id), token);
    if (plan.status !== "released" && plan.status !== "claimed") {
      throw conflict("legacy_plan_not_released", "this plan is not released: it opens only after its owner stopped checking in and the warning ended");
    }
    const taken = ctx.db
      .query("UPDATE legacy_beneficiaries SET claimed_at = ?, claimed_by_account = ? WHERE id = ? AND claimed_at IS NULL")
      .run(now, accountId, slot.id).changes;
    if (!taken) throw conflict("legacy_already_claimed", "this beneficiary already opened the plan; each claim opens once");
    recordHistory(ctx, plan.id, "claimed", now, { beneficiary_id: slot.id });
    if (plan.status === "released") {
      ctx.db.query("UPDATE legacy_plans SET status = 'claimed', claimed_at = ? WHERE id = ?").run(now, plan.id);
      ctx.outbox.emit("legacy_plan_claimed", plan.account_id, { plan_id: plan.id, plan_name: plan.name, beneficiary_id: slot.id, claimed_at: isoTime(now) });
    }
    return {
      plan_id: plan.id,
      plan_name: plan.name,
      beneficiary_id: slot.id,
      claimed_at: isoTime(now),
      objects: objectsOf(ctx, plan.id).filter((o) => o.sealed !== null).map(objectMeta),
    };
  });
}

/** An object of a plan the caller's account opened; anything else is one 404. */
export function claimObject(ctx: Context, accountId: string, planId: string, objectId: string): { id: string; name: string; bytes: number; content_b64: string } {
  const plan = planById(ctx, planId);
  const opened = plan !== null && plan.status !== "cancelled" && beneficiariesOf(ctx, plan.id).some((b) => b.claimed_by_account === accountId);
  const object = opened ? objectsOf(ctx, plan.id).find((o) => o.id === objectId) : undefined;
  if (!object || object.sealed === null) throw notFound("object");
  const bytes = ctx.sealer.open(object.sealed, objectAad(plan!.id, object.id));
  return { id: object.id, name: object.name, bytes: object.bytes, content_b64: Buffer.from(bytes).toString("base64") };
}

/**
 * Post settings and handles (docs/post.md "Settings"): an account claims one handle, once, and
 * sets its postage (0 to 1.00 USD), who may write (anyone, its allow list, nobody) and whom it
 * refuses (its block list). A handle is permanent because other accounts' lists and threads
 * name it: a released handle taken by someone else would inherit their allow-list places.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import type { AcceptPolicy } from "./limits.ts";
import type { PublicHandle, Settings } from "./models.ts";
import { saveSettings, settingsByHandle, settingsRow, type SettingsRecord } from "./store.ts";

export type SettingsView = Static<typeof Settings>;

export interface SettingsChange {
  handle?: string;
  postage_micro_usd?: number;
  accept?: AcceptPolicy;
  allow?: string[];
  block?: string[];
}

/** An account's settings, or the deployment's defaults while it has set none. */
export function effectiveSettings(ctx: Context, accountId: string): SettingsRecord {
  return settingsRow(ctx, accountId) ?? { accountId, handle: null, postage: ctx.config.post.default_postage_micro_usd, accept: "anyone", allow: [], block: [], updatedAt: null };
}

const view = (s: SettingsRecord): SettingsView => ({
  handle: s.handle,
  postage_micro_usd: s.postage,
  accept: s.accept,
  allow: s.allow,
  block: s.block,
  updated_at: s.updatedAt === null ? null : isoTime(s.updatedAt),
});

export function getSettings(ctx: Context, accountId: string): SettingsView {
  return view(effectiveSettings(ctx, accountId));
}

const sortedUnique = (handles: string[]): string[] => [...new Set(handles)].sort();

/** Merges the change into the current settings and writes them, in one transaction (a handle is claimed by exactly one account). */
export function updateSettings(ctx: Context, accountId: string, change: SettingsChange): SettingsView {
  return ctx.tx.run(() => {
    const current = effectiveSettings(ctx, accountId);
    const next: SettingsRecord = {
      ...current,
      handle: change.handle ?? current.handle,
      postage: change.postage_micro_usd ?? current.postage,
      accept: change.accept ?? current.accept,
      allow: change.allow ? sortedUnique(change.allow) : current.allow,
      block: change.block ? sortedUnique(change.block) : current.block,
    };
    if (change.handle !== undefined && change.handle !== current.handle) {
      if (current.handle !== null) {
        throw new ApiError(409, "handle_already_claimed", `this account's handle is ${current.handle}; a handle is claimed once and cannot be changed`, { param: "handle" });
      }
      if (settingsByHandle(ctx, change.handle)) throw new ApiError(409, "handle_taken", `handle ${change.handle} belongs to another account`, { param: "handle" });
    }
    // Checked on the merged lists, so a subset that only sets one list cannot contradict the other.
    const field = change.block ? "block" : "allow";
    const clash = (field === "block" ? next.block : next.allow).find((h) => (field === "block" ? next.allow : next.block).includes(h));
    if (clash !== undefined) throw invalidField(field, `${clash} is on both the allow and the block list`);
    if (next.handle !== null) {
      for (const list of ["allow", "block"] as const) if (next[list].includes(next.handle)) throw invalidField(list, `lists your own handle (${next.handle})`);
    }
    const at = ctx.clock.now();
    saveSettings(ctx, next, at);
    return view({ ...next, updatedAt: at });
  });
}

/** GET /v1/post/handles/:handle: whether the handle takes post and at what postage; unknown handles answer 404. */
export function publicHandle(ctx: Context, handle: string): Static<typeof PublicHandle> {
  const s = settingsByHandle(ctx, handle);
  if (!s) throw notFound("handle");
  return { handle, accepts: s.accept !== "nobody", postage: { amount_micro_usd: s.postage, currency: "USD" as const }, postage_micro_usd: s.postage };
}

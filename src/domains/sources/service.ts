/**
 * The source sets' rules (docs/sources.md): a set is immutable once made — its entries and so
 * its fingerprint never change — and belongs to one account. Another account's set, an unknown
 * id and (publicly) a private set all answer the same 404. A set is cited by an inference
 * request's svc_source_set; sourceSetAttestation is what the call's receipt then states.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { entryOf, FINGERPRINT_ALG, fingerprintOf, type SourceEntry } from "./fingerprint.ts";
import { MAX_SETS_PER_ACCOUNT } from "./limits.ts";
// Types only: models.ts reads limits.ts, and the shapes served are declared there once.
import type { PublicSet, SourceSet } from "./models.ts";
import { countSets, deleteSet, insertSet, setById, setsOf, type SourceSetRecord } from "./store.ts";

export type SourceSetView = Static<typeof SourceSet>;
export type PublicSetView = Static<typeof PublicSet>;

export interface CreateSetInput {
  name: string;
  sources: SourceEntry[];
  public?: boolean;
}

const publicUrl = (ctx: Context, id: string) => `${ctx.config.public_url}/v1/sources/public/${encodeURIComponent(id)}`;

/** What a schema cannot say: each entry names a url or a sha256, and a url is http(s). */
function checkEntries(sources: readonly SourceEntry[]): void {
  sources.forEach((e, i) => {
    if (e.url === undefined && e.sha256 === undefined) throw invalidField(`sources.${i}`, "needs a url, a sha256 or both");
    if (e.url !== undefined) {
      let scheme = "";
      try {
        scheme = new URL(e.url).protocol;
      } catch {
        throw invalidField(`sources.${i}.url`, "is not a URL");
      }
      if (scheme !== "http:" && scheme !== "https:") throw invalidField(`sources.${i}.url`, "must be an http or https URL");
    }
  });
}

/** What the owner's view and the public page both show of a set. */
const setFields = (s: SourceSetRecord) => ({
  id: s.id,
  name: s.name,
  fingerprint: s.fingerprint,
  fingerprint_alg: FINGERPRINT_ALG,
  count: s.entries.length,
  sources: s.entries,
  created_at: isoTime(s.createdAt),
});

function ownerView(ctx: Context, s: SourceSetRecord): SourceSetView {
  return {
    ...setFields(s),
    public: s.isPublic,
    public_url: s.isPublic ? publicUrl(ctx, s.id) : null,
    reference: `"svc_source_set": "${s.id}" on an inference request stamps {id, fingerprint} on the call's receipt (attestations.source_set)`,
  };
}

/** Another account's set answers the same 404 as an unknown one. */
function ownSet(ctx: Context, accountId: string, id: string): SourceSetRecord {
  const s = setById(ctx, id);
  if (!s || s.accountId !== accountId) throw notFound("source set");
  return s;
}

export function createSet(ctx: Context, accountId: string, input: CreateSetInput): SourceSetView {
  checkEntries(input.sources);
  const entries = input.sources.map(entryOf);
  const record: SourceSetRecord = {
    id: newId("sset"),
    accountId,
    name: input.name,
    entries,
    fingerprint: fingerprintOf(entries),
    isPublic: input.public ?? false,
    createdAt: ctx.clock.now(),
  };
  ctx.tx.run(() => {
    if (countSets(ctx, accountId) >= MAX_SETS_PER_ACCOUNT) {
      throw new ApiError(409, "source_set_limit_reached", `this account holds ${MAX_SETS_PER_ACCOUNT} source sets, the most allowed; delete one first`, { limit: MAX_SETS_PER_ACCOUNT });
    }
    insertSet(ctx, record);
  });
  return ownerView(ctx, record);
}

export function listSets(ctx: Context, accountId: string): SourceSetView[] {
  return setsOf(ctx, accountId, MAX_SETS_PER_ACCOUNT).map((s) => ownerView(ctx, s));
}

export function getSet(ctx: Context, accountId: string, id: string): SourceSetView {
  return ownerView(ctx, ownSet(ctx, accountId, id));
}

/** Removes the set: its pages answer 404 and new calls can no longer cite it; receipts that did keep its fingerprint. */
export function removeSet(ctx: Context, accountId: string, id: string): { id: string; deleted: true } {
  return ctx.tx.run(() => {
    const s = ownSet(ctx, accountId, id);
    deleteSet(ctx, s.id);
    return { id: s.id, deleted: true as const };
  });
}

/** A set made public, for anyone; unknown, deleted and private alike answer 404. */
export function publicSet(ctx: Context, id: string): PublicSetView {
  const s = setById(ctx, id);
  if (!s || !s.isPublic) throw notFound("source set");
  return {
    ...setFields(s),
    verify: `sha256 the canonical JSON (keys sorted, no whitespace) of \`sources\` as shown and compare it with \`fingerprint\`; a receipt that cites this set states the same fingerprint in attestations.source_set. Check a receipt with POST ${ctx.config.public_url}/v1/receipts/verify (docs/sources.md)`,
  };
}

/**
 * The receipt's `source_set` attestation group for a call that cites `id` (svc_source_set), for
 * the inference pipeline. Only the caller's own account's sets can be cited: another account's
 * or an unknown id is refused 404 naming the field, before anything is reserved.
 */
export function sourceSetAttestation(ctx: Context, accountId: string, id: string, field = "svc_source_set"): Record<string, string | number> {
  const s = setById(ctx, id);
  if (!s || s.accountId !== accountId) {
    throw new ApiError(404, "source_set_not_found", `${field}: this account has no source set ${id} (GET /v1/sources/sets lists them)`, { param: field });
  }
  return { id: s.id, fingerprint: s.fingerprint, count: s.entries.length, alg: FINGERPRINT_ALG };
}

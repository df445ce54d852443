/**
 * Guardrails: create, list, delete (docs/guardrails.md). A guardrail is checked whole on the
 * way in — every detector compiled with its options, every scoped key the account's own — so
 * what is stored always compiles on the hot path. Rows are never edited: to change a guardrail,
 * create the new one and delete the old (the receipts each stamped keep their ids).
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { keyRowsOf } from "../keys/index.ts";
import { DETECTORS, type DetectorName } from "./detectors/index.ts";
import { countGuardrails, type DetectorSpec, deleteGuardrailRow, guardrailsOf, type GuardrailRow, insertGuardrail } from "./store.ts";

export const GUARDRAILS_PER_ACCOUNT = 200;
export const MAX_DETECTORS = 16;

export interface GuardrailInput {
  name: string;
  detectors: { type: string; direction: DetectorSpec["direction"]; action: DetectorSpec["action"]; options?: Record<string, unknown> }[];
  scope?: { keys?: string[] | null; models?: string[] | null } | null;
}

export function guardrailView(row: GuardrailRow) {
  return {
    id: row.id,
    name: row.name,
    detectors: row.detectors,
    scope: { keys: row.scope_keys, models: row.scope_models },
    created_at: isoTime(row.created_at),
  };
}

export type GuardrailView = ReturnType<typeof guardrailView>;

const limitReached = () =>
  new ApiError(409, "guardrail_limit_reached", `this account has ${GUARDRAILS_PER_ACCOUNT} guardrails, the most allowed; delete one first`, { limit: GUARDRAILS_PER_ACCOUNT });

export function createGuardrail(ctx: Context, accountId: string, input: GuardrailInput): GuardrailView {
  const name = input.name.trim();
  const detectors: DetectorSpec[] = input.detectors.map((d, i) => {
    const options = d.options ?? {};
    // Compiling checks the options (terms, kinds) exactly as the hot path will use them.
    DETECTORS[d.type as DetectorName].compile(options, `detectors[${i}].options`);
    return { type: d.type, direction: d.direction, action: d.action, options };
  });
  const keys = input.scope?.keys ?? null;
  if (keys) {
    const unique = [...new Set(keys)];
    const own = new Set(keyRowsOf(ctx, accountId, unique).map((k) => k.id));
    const stranger = unique.find((k) => !own.has(k));
    if (stranger !== undefined) throw invalidField("scope.keys", `${stranger} is not one of this account's API keys`);
  }
  const models = input.scope?.models ?? null;
  // Through ctx.tx (not a bare transaction): the read cache re-reads its counter when it ends, so
  // this process's next call sees the new guardrail at once (store.ts guardrailIdsOf).
  return ctx.tx.run(() => {
    if (countGuardrails(ctx, accountId) >= GUARDRAILS_PER_ACCOUNT) throw limitReached();
    const row: GuardrailRow = {
      id: newId("gr"),
      account_id: accountId,
      name,
      detectors,
      scope_keys: keys && [...new Set(keys)],
      scope_models: models && [...new Set(models)],
      created_at: ctx.clock.now(),
    };
    insertGuardrail(ctx, row);
    return guardrailView(row);
  });
}

export function listGuardrails(ctx: Context, accountId: string): GuardrailView[] {
  return guardrailsOf(ctx, accountId).map(guardrailView);
}

/** Hard delete: calls from now on are no longer checked by it. Another account's id is a 404. */
export function deleteGuardrail(ctx: Context, accountId: string, id: string): { id: string; deleted: true } {
  if (!ctx.tx.run(() => deleteGuardrailRow(ctx, accountId, id))) throw notFound("guardrail");
  return { id, deleted: true };
}

/**
 * Account model routes: an account's standing instruction that its requests for one model are
 * served by another (autopilot's switch_model proposal, once an admin adopts it). The pipeline
 * looks the route up as it picks the model, so every API, stream or not, follows it; the
 * receipt names both (`attestations.routing.routed_from`). A route to a model the catalogue no
 * longer has (or of another type) is ignored, never a failed call: the client asked for a model
 * that exists.
 */
import { invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";

export interface ModelRoute {
  from: string;
  to: string;
  created_at: number;
}

/** Sets (or replaces) the account's route from one chat model to another; both must be chat models of the catalogue. */
export function setModelRoute(ctx: Context, accountId: string, from: string, to: string): void {
  if (from === to) throw invalidField("to", "must differ from the model it replaces");
  const snapshot = ctx.catalog.current();
  for (const [field, id] of [["from", from], ["to", to]] as const) {
    const model = snapshot.model(id);
    if (!model || model.type !== "chat") throw invalidField(field, `${id} is not a chat model of this deployment's catalogue`);
  }
  ctx.tx.join(() =>
    ctx.db
      .query("INSERT INTO account_model_routes (account_id, from_model, to_model, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, from_model) DO UPDATE SET to_model = excluded.to_model, created_at = excluded.created_at")
      .run(accountId, from, to, ctx.clock.now()),
  );
}

export function clearModelRoute(ctx: Context, accountId: string, from: string): void {
  ctx.tx.join(() => ctx.db.query("DELETE FROM account_model_routes WHERE account_id = ? AND from_model = ?").run(accountId, from));
}

export function modelRoutesOf(ctx: Context, accountId: string): ModelRoute[] {
  return ctx.db
    .query<ModelRoute, [string]>("SELECT from_model AS \"from\", to_model AS \"to\", created_at FROM account_model_routes WHERE account_id = ? ORDER BY from_model")
    .all(accountId);
}

/** The model the account's requests for `model` go to, or null when it has no route for it. */
export function routedModel(ctx: Context, accountId: string, model: string): string | null {
  // Read on every chat call: from the read cache, kept current by the routes' trigger (migration 0053).
  return ctx.reads.get("inference.model_route", `${accountId} ${model}`, () => ctx.db.query<{ to_model: string }, [string, string]>("SELECT to_model FROM account_model_routes WHERE account_id = ? AND from_model = ?").get(accountId, model)?.to_model ?? null);
}

/**
 * Snapshots (spec §2.6): a session's workspace archived on the backend that runs it (the
 * gateway or its node: the archive never travels), with a metadata row here. A new session can
 * start from one — on that same backend. Deleting one removes the archive where it is; a node
 * that is gone keeps its archive, and the row goes anyway.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { BackendUnavailable } from "./backend.ts";
import { backendOf } from "./dispatch.ts";
import { asApiError } from "./errors.ts";
import { LIST_CAP } from "./models.ts";
import { liveSession } from "./session-work.ts";
import { stopSession, touchSession, workspaceOf } from "./sessions.ts";

interface SnapshotRow {
  id: string;
  account_id: string;
  session_id: string;
  node_id: string | null;
  bytes: number;
  created_at: number;
}

export interface SnapshotView {
  id: string;
  object: "sandbox.snapshot";
  session_id: string;
  node_id: string | null;
  bytes: number;
  created_at: string;
}

const view = (r: SnapshotRow): SnapshotView => ({ id: r.id, object: "sandbox.snapshot", session_id: r.session_id, node_id: r.node_id, bytes: r.bytes, created_at: isoTime(r.created_at) });

function owned(ctx: Context, accountId: string, id: string): SnapshotRow {
  const row = ctx.db.query<SnapshotRow, [string]>("SELECT id, account_id, session_id, node_id, bytes, created_at FROM sandbox_snapshots WHERE id = ?").get(id);
  if (!row || row.account_id !== accountId) throw notFound("sandbox snapshot");
  return row;
}

const countOf = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sandbox_snapshots WHERE account_id = ?").get(accountId)!.n;

/** POST /v1/sandboxes/sessions/:id/snapshot */
export async function snapshotSession(ctx: Context, accountId: string, sessionId: string): Promise<SnapshotView> {
  const session = liveSession(ctx, accountId, sessionId);
  const max = ctx.config.sandboxes.max_snapshots_per_account;
  if (countOf(ctx, accountId) >= max) {
    throw new ApiError(409, "snapshot_limit_reached", `an account may keep at most ${max} sandbox snapshots; delete one first`, { limit: max });
  }
  touchSession(ctx, sessionId);
  const id = newId("snap");
  let bytes: number;
  try {
    const backend = await backendOf(ctx, session.node_id);
    ({ bytes } = await backend.snapshot(workspaceOf(session), id));
  } catch (err) {
    if (err instanceof BackendUnavailable) stopSession(ctx, sessionId, "node_unreachable");
    throw asApiError(err);
  }
  const row: SnapshotRow = { id, account_id: accountId, session_id: sessionId, node_id: session.node_id, bytes, created_at: ctx.clock.now() };
  ctx.db
    .query("INSERT INTO sandbox_snapshots (id, account_id, session_id, node_id, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(row.id, row.account_id, row.session_id, row.node_id, row.bytes, row.created_at);
  return view(row);
}

export function listSnapshots(ctx: Context, accountId: string): SnapshotView[] {
  return ctx.db
    .query<SnapshotRow, [string, number]>("SELECT id, account_id, session_id, node_id, bytes, created_at FROM sandbox_snapshots WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
    .all(accountId, LIST_CAP)
    .map(view);
}

export const getSnapshot = (ctx: Context, accountId: string, id: string): SnapshotView => view(owned(ctx, accountId, id));

/** DELETE /v1/sandboxes/snapshots/:id */
export async function deleteSnapshot(ctx: Context, accountId: string, id: string): Promise<{ id: string; deleted: true }> {
  const row = owned(ctx, accountId, id);
  try {
    await (await backendOf(ctx, row.node_id)).deleteSnapshot(id);
  } catch (err) {
    if (!(err instanceof BackendUnavailable)) throw asApiError(err);
    ctx.log.warn("a deleted snapshot's archive stays on its unreachable node", { snapshot_id: id, node_id: row.node_id });
  }
  ctx.db.query("DELETE FROM sandbox_snapshots WHERE id = ?").run(id);
  return { id, deleted: true };
}

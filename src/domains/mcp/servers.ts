/**
 * The account's MCP servers for the gateway (/v1/mcp-servers): the URL and the credential are
 * sealed at rest (AAD bound to the row and the field); the URL passes the outbound guard at
 * creation and on every change (and again whenever the gateway dials it: upstream.ts). Another
 * account's server answers the same 404 as an unknown one; so does a disabled server on the
 * MCP path.
 */
import { isoTime } from "../../core/clock.ts";
import { invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { MicroUsd } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { resolveTarget, TargetRefused } from "../webhooks/index.ts";

export interface ServerRow {
  id: string;
  account_id: string;
  name: string;
  url_sealed: string;
  credential_sealed: string | null;
  allowed_tools: string | null;
  price_micro_usd_per_call: number | null;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export interface ServerView {
  id: string;
  name: string;
  url: string;
  has_credential: boolean;
  allowed_tools: string[] | null;
  price_micro_usd_per_call: MicroUsd | null;
  effective_price_micro_usd_per_call: MicroUsd;
  enabled: boolean;
  endpoint: string;
  created_at: string;
  updated_at: string;
}

/** What the gateway needs to dial a server: its row, opened. */
export interface OpenedServer {
  row: ServerRow;
  url: string;
  credential: string | null;
  allowedTools: string[] | null;
  price: MicroUsd;
}

export interface ServerInput {
  name: string;
  url: string;
  credential?: string | null;
  allowed_tools?: string[] | null;
  price_micro_usd_per_call?: MicroUsd | null;
  enabled?: boolean;
}

export type ServerPatch = Partial<ServerInput>;

const aad = (id: string, field: "url" | "credential") => `mcp_servers:${id}:${field}`;

export const defaultPrice = (ctx: Context): MicroUsd => ctx.config.mcp.default_price_micro_usd_per_call;

export const endpointOf = (ctx: Context, id: string): string => `${ctx.config.public_url}/v1/mcp/servers/${id}`;

function priceOf(ctx: Context, row: ServerRow): MicroUsd {
  return row.price_micro_usd_per_call ?? defaultPrice(ctx);
}

function view(ctx: Context, row: ServerRow): ServerView {
  return {
    id: row.id,
    name: row.name,
    url: ctx.sealer.openText(row.url_sealed, aad(row.id, "url")),
    has_credential: row.credential_sealed !== null,
    allowed_tools: row.allowed_tools === null ? null : (JSON.parse(row.allowed_tools) as string[]),
    price_micro_usd_per_call: row.price_micro_usd_per_call,
    effective_price_micro_usd_per_call: priceOf(ctx, row),
    enabled: row.enabled === 1,
    endpoint: endpointOf(ctx, row.id),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

/** The outbound guard, as a 400 naming the field. */
async function checkUrl(ctx: Context, url: string): Promise<void> {
  try {
    await resolveTarget(url, { allowPrivate: ctx.config.webhooks.allow_private });
  } catch (err) {
    if (err instanceof TargetRefused) throw invalidField("url", err.message);
    throw err;
  }
}

export async function createServer(ctx: Context, accountId: string, input: ServerInput): Promise<ServerView> {
  await checkUrl(ctx, input.url);
  const id = newId("mcps");
  const now = ctx.clock.now();
  const row = ctx.db
    .query<ServerRow, (string | number | null)[]>(
      `INSERT INTO mcp_servers (id, account_id, name, url_sealed, credential_sealed, allowed_tools, price_micro_usd_per_call, enabled, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(
      id,
      accountId,
      input.name,
      ctx.sealer.seal(input.url, aad(id, "url")),
      input.credential ? ctx.sealer.seal(input.credential, aad(id, "credential")) : null,
      input.allowed_tools == null ? null : JSON.stringify(input.allowed_tools),
      input.price_micro_usd_per_call ?? null,
      input.enabled === false ? 0 : 1,
      now,
      now,
    )!;
  return view(ctx, row);
}

export function listServers(ctx: Context, accountId: string): ServerView[] {
  return ctx.db
    .query<ServerRow, [string]>("SELECT * FROM mcp_servers WHERE account_id = ? ORDER BY created_at DESC, rowid DESC")
    .all(accountId)
    .map((r) => view(ctx, r));
}

export function ownServer(ctx: Context, accountId: string, id: string): ServerRow {
  const row = ctx.db.query<ServerRow, [string]>("SELECT * FROM mcp_servers WHERE id = ?").get(id);
  if (!row || row.account_id !== accountId) throw notFound("MCP server");
  return row;
}

export async function updateServer(ctx: Context, accountId: string, id: string, patch: ServerPatch): Promise<ServerView> {
  ownServer(ctx, accountId, id);
  if (patch.url !== undefined) await checkUrl(ctx, patch.url);
  const sets: string[] = [];
  const values: (string | number | null)[] = [];
  const set = (column: string, value: string | number | null) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  if (patch.name !== undefined) set("name", patch.name);
  if (patch.url !== undefined) set("url_sealed", ctx.sealer.seal(patch.url, aad(id, "url")));
  if (patch.credential !== undefined) set("credential_sealed", patch.credential === null ? null : ctx.sealer.seal(patch.credential, aad(id, "credential")));
  if (patch.allowed_tools !== undefined) set("allowed_tools", patch.allowed_tools === null ? null : JSON.stringify(patch.allowed_tools));
  if (patch.price_micro_usd_per_call !== undefined) set("price_micro_usd_per_call", patch.price_micro_usd_per_call);
  if (patch.enabled !== undefined) set("enabled", patch.enabled ? 1 : 0);
  // updated_at moves on every change, and the gateway's pooled connection is keyed by it (upstream.ts).
  set("updated_at", Math.max(ctx.clock.now(), ownServer(ctx, accountId, id).updated_at + 1));
  const row = ctx.db.query<ServerRow, (string | number | null)[]>(`UPDATE mcp_servers SET ${sets.join(", ")} WHERE id = ? AND account_id = ? RETURNING *`).get(...values, id, accountId)!;
  return view(ctx, row);
}

export function deleteServer(ctx: Context, accountId: string, id: string): { id: string; deleted: true } {
  ownServer(ctx, accountId, id);
  ctx.db.query("DELETE FROM mcp_servers WHERE id = ? AND account_id = ?").run(id, accountId);
  return { id, deleted: true };
}

/** The server as the gateway dials it; unknown, another account's and disabled all answer 404. */
export function openServer(ctx: Context, accountId: string, id: string, options: { includeDisabled?: boolean } = {}): OpenedServer {
  const row = ownServer(ctx, accountId, id);
  if (row.enabled !== 1 && !options.includeDisabled) throw notFound("MCP server");
  return {
    row,
    url: ctx.sealer.openText(row.url_sealed, aad(row.id, "url")),
    credential: row.credential_sealed === null ? null : ctx.sealer.openText(row.credential_sealed, aad(row.id, "credential")),
    allowedTools: row.allowed_tools === null ? null : (JSON.parse(row.allowed_tools) as string[]),
    price: priceOf(ctx, row),
  };
}

/**
 * Connections to the upstream MCP servers of the gateway, on the official SDK client (Streamable
 * HTTP transport). One connected client per server, per context, reused across calls (the
 * initialize handshake is paid once, not per call), keyed by the row's updated_at so a PATCH
 * (URL, credential) takes effect on the next call, and re-dialled after a few minutes so the
 * outbound guard sees fresh DNS.
 *
 * Every request goes to the address the outbound guard checked (webhooks/ssrf.ts: no private
 * target unless the operator allows it, DNS pinned against rebinding, redirects never followed),
 * with the sealed credential as Authorization: Bearer. The credential travels only upstream.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult, ListToolsResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "../../context.ts";
import { resolveTarget, type Target, TargetRefused } from "../webhooks/index.ts";
import type { OpenedServer } from "./servers.ts";

/** How long a pooled connection is used before the URL is checked and dialled afresh. */
const REDIAL_AFTER_MS = 5 * 60_000;

/** The upstream could not be reached or answered wrongly; the message is safe to show its owner. */
export class UpstreamFailed extends Error {}

interface Pooled {
  version: number;
  openedAt: number;
  client: Promise<Client>;
}

const pools = new WeakMap<Context, Map<string, Pooled>>();

/** A fetch that sends every request of the transport to the checked address, never following a redirect. */
function pinnedFetch(target: Target, original: URL): typeof fetch {
  const pinned = new URL(target.url);
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === original.origin) {
      url.protocol = pinned.protocol;
      url.host = pinned.host;
    }
    const headers = new Headers(init?.headers);
    if (target.host) headers.set("host", target.host);
    return fetch(url, { ...init, headers, redirect: "manual", ...(target.serverName ? { tls: { serverName: target.serverName } } : {}) } as RequestInit);
  }) as typeof fetch;
}

async function connect(ctx: Context, server: OpenedServer): Promise<Client> {
  let target: Target;
  try {
    target = await resolveTarget(server.url, { allowPrivate: ctx.config.webhooks.allow_private });
  } catch (err) {
    if (err instanceof TargetRefused) throw new UpstreamFailed(`the server's URL is refused: it ${err.message}`);
    throw err;
  }
  const url = new URL(server.url);
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: pinnedFetch(target, url),
    requestInit: server.credential ? { headers: { authorization: `Bearer ${server.credential}` } } : undefined,
  });
  const client = new Client({ name: "svc-mcp-gateway", version: ctx.version }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: ctx.config.mcp.upstream_timeout_secs * 1000 });
  } catch (err) {
    await client.close().catch(() => {});
    throw new UpstreamFailed(`the MCP server did not complete the initialize handshake: ${describe(err)}`);
  }
  return client;
}

function describe(err: unknown): string {
  if (err instanceof StreamableHTTPError) return `HTTP ${err.code ?? "error"}`;
  const message = err instanceof Error ? err.message : String(err);
  // The SDK's messages may quote the upstream's body: keep them short.
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

function pool(ctx: Context): Map<string, Pooled> {
  let p = pools.get(ctx);
  if (!p) pools.set(ctx, (p = new Map()));
  return p;
}

/** The pooled client for a server, dialled when absent, stale or changed. */
export function clientFor(ctx: Context, server: OpenedServer): Promise<Client> {
  const p = pool(ctx);
  const now = Date.now();
  const current = p.get(server.row.id);
  if (current && current.version === server.row.updated_at && now - current.openedAt < REDIAL_AFTER_MS) return current.client;
  if (current) void current.client.then((c) => c.close()).catch(() => {});
  const client = connect(ctx, server);
  p.set(server.row.id, { version: server.row.updated_at, openedAt: now, client });
  // A failed dial is not kept: the next call dials again.
  client.catch(() => {
    if (p.get(server.row.id)?.client === client) p.delete(server.row.id);
  });
  return client;
}

/** Forgets a server's connection (its session expired upstream, or it was deleted). */
export function dropClient(ctx: Context, serverId: string): void {
  const p = pool(ctx);
  const current = p.get(serverId);
  p.delete(serverId);
  if (current) void current.client.then((c) => c.close()).catch(() => {});
}

/** Closes every pooled connection of a context (svc serve stopping, a test ending). */
export async function closeUpstreams(ctx: Context): Promise<void> {
  const p = pool(ctx);
  const all = [...p.values()];
  p.clear();
  await Promise.allSettled(all.map(async (e) => (await e.client).close()));
}

/** The upstream forgot our session (HTTP 404 on a request with its Mcp-Session-Id): safe to dial again and resend. */
const sessionLost = (err: unknown): boolean => err instanceof StreamableHTTPError && err.code === 404;

async function withClient<T>(ctx: Context, server: OpenedServer, signal: AbortSignal | undefined, run: (client: Client) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const client = await clientFor(ctx, server);
    try {
      return await run(client);
    } catch (err) {
      if (attempt === 0 && sessionLost(err) && !signal?.aborted) {
        dropClient(ctx, server.row.id);
        continue;
      }
      if (err instanceof UpstreamFailed) throw err;
      // A JSON-RPC error the upstream answered (McpError) passes through as it is; a transport failure drops the connection.
      if ((err as { code?: unknown }).code !== undefined && !(err instanceof StreamableHTTPError)) throw err;
      dropClient(ctx, server.row.id);
      throw new UpstreamFailed(`the MCP server failed: ${describe(err)}`);
    }
  }
}

const options = (ctx: Context, signal?: AbortSignal) => ({ timeout: ctx.config.mcp.upstream_timeout_secs * 1000, signal });

/** Every tool the upstream lists (following its pages). */
export async function upstreamTools(ctx: Context, server: OpenedServer, signal?: AbortSignal): Promise<{ tools: Tool[]; serverInfo: { name: string; version: string } }> {
  return withClient(ctx, server, signal, async (client) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const result = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, ListToolsResultSchema, options(ctx, signal));
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    const info = client.getServerVersion();
    return { tools, serverInfo: { name: info?.name ?? "", version: info?.version ?? "" } };
  });
}

/** One tools/call, passed through as the upstream answered it (no output-schema rewriting). */
export function upstreamCall(ctx: Context, server: OpenedServer, params: { name: string; arguments?: Record<string, unknown> }, signal?: AbortSignal): Promise<CallToolResult> {
  return withClient(ctx, server, signal, (client) => client.request({ method: "tools/call", params }, CallToolResultSchema, options(ctx, signal)) as Promise<CallToolResult>);
}

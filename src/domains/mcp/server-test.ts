/** POST /v1/mcp-servers/:id/test: connect, list the tools' names (names only). A failure or an empty list is a 502 saying which. */
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { openServer } from "./servers.ts";
import { UpstreamFailed, upstreamTools } from "./upstream.ts";

export async function testServer(ctx: Context, accountId: string, id: string, signal?: AbortSignal) {
  const server = openServer(ctx, accountId, id, { includeDisabled: true });
  const started = performance.now();
  let listed: Awaited<ReturnType<typeof upstreamTools>>;
  try {
    listed = await upstreamTools(ctx, server, signal);
  } catch (err) {
    const message = err instanceof UpstreamFailed ? err.message : err instanceof Error ? `the MCP server answered an error: ${err.message}` : "the MCP server failed";
    throw new ApiError(502, "mcp_upstream_failed", message);
  }
  if (listed.tools.length === 0) throw new ApiError(502, "mcp_upstream_no_tools", `the MCP server "${server.row.name}" lists no tools`);
  const names = listed.tools.map((t) => t.name);
  return {
    id,
    ok: true as const,
    server: listed.serverInfo,
    tools: names,
    allowed: server.allowedTools === null ? names : names.filter((n) => server.allowedTools!.includes(n)),
    latency_ms: Math.round(performance.now() - started),
  };
}

/**
 * The names of things on the wire: the issuer (this deployment's public URL), the protected
 * resources tokens may be minted for (RFC 8707 audiences: svc's MCP server, and each gateway
 * server's endpoint), and where their RFC 9728 metadata lives.
 */
import type { Context } from "../../context.ts";

export const MCP_PATH = "/v1/mcp";
export const GATEWAY_PATH = /^\/v1\/mcp\/servers\/([A-Za-z0-9_-]{1,64})$/;
export const PRM_PREFIX = "/.well-known/oauth-protected-resource";

export const issuer = (ctx: Context): string => ctx.config.public_url;

export const mcpResource = (ctx: Context): string => `${ctx.config.public_url}${MCP_PATH}`;

/** The resource a request to `path` is (null: not an OAuth-protected resource). */
export function resourceOfPath(ctx: Context, path: string): string | null {
  return path === MCP_PATH || GATEWAY_PATH.test(path) ? `${ctx.config.public_url}${path}` : null;
}

/** The resource an RFC 8707 `resource` names, normalised (no trailing slash, no fragment), or null when svc serves no such resource. */
export function knownResource(ctx: Context, resource: string): string | null {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.origin !== new URL(ctx.config.public_url).origin || url.search || url.hash) return null;
  return resourceOfPath(ctx, url.pathname.replace(/\/+$/, ""));
}

/** RFC 9728 §3.1: the metadata of resource https://host/p lives at https://host/.well-known/oauth-protected-resource/p. */
export const resourceMetadataUrl = (ctx: Context, resource: string): string => `${ctx.config.public_url}${PRM_PREFIX}${new URL(resource).pathname}`;

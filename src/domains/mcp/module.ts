/**
 * MCP: svc's remote MCP server, the gateway to registered third-party MCP servers, and their
 * registry (docs/mcp.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { mcpConfig } from "./config.ts";
import { mcpRoutes } from "./routes.ts";
import { closeUpstreams } from "./upstream.ts";

export const mcpModule = defineModule({
  name: "mcp",
  config: mcpConfig,
  routes: (ctx) => mcpRoutes(ctx),
  serve: { stop: (ctx) => closeUpstreams(ctx) },
});

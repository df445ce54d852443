/**
 * MCP: svc's remote MCP server (POST /v1/mcp), the gateway to registered third-party MCP servers
 * (POST /v1/mcp/servers/:id) and their registry (/v1/mcp-servers).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { closeUpstreams } from "./upstream.ts";
export { RECEIPT_META, type ReceiptMeta, withReceipt } from "./metering.ts";
/** svc's tools and a registered server's tools as functions for a model loop (hosted agents). */
export { type FunctionTool, mcpServerUsable, type Refusal, refusalOf, serverFunctions, svcFunctions, svcToolScopes } from "./functions.ts";

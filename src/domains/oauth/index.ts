/**
 * OAuth 2.1 authorization server for MCP clients (/.well-known/oauth-*, /v1/oauth/*): access
 * tokens stand for an API key of the account, with an audience (docs/oauth.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { ACCESS_PREFIX, resolveAccessToken, revokeGrant } from "./tokens.ts";
export { mcpResource, resourceMetadataUrl, resourceOfPath } from "./resources.ts";

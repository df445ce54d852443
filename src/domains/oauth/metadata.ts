/** The discovery documents: RFC 8414 authorization server metadata and RFC 9728 protected resource metadata. */
import type { Context } from "../../context.ts";
import { GRANTABLE } from "./authorize.ts";
import { issuer } from "./resources.ts";

export function authorizationServerMetadata(ctx: Context) {
  const base = ctx.config.public_url;
  return {
    issuer: issuer(ctx),
    authorization_endpoint: `${base}/v1/oauth/authorize`,
    token_endpoint: `${base}/v1/oauth/token`,
    registration_endpoint: `${base}/v1/oauth/register`,
    revocation_endpoint: `${base}/v1/oauth/revoke`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256" as const],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: GRANTABLE,
    client_id_metadata_document_supported: ctx.config.oauth.client_metadata_documents,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/openapi.json`,
  };
}

export function protectedResourceMetadata(ctx: Context, resource: string) {
  return {
    resource,
    authorization_servers: [issuer(ctx)],
    scopes_supported: GRANTABLE,
    bearer_methods_supported: ["header"],
    resource_name: resource.endsWith("/v1/mcp") ? "svc MCP server" : "svc MCP gateway server",
  };
}

/**
 * TypeBox models of the OAuth routes: the discovery documents, registration, the client view,
 * the token answer, approve, and the non-JSON answers (302 redirects, the consent page's HTML).
 * Token, registration and revocation errors are RFC 6749 bodies (errors.ts), which the shared
 * Error schema documents beside svc's own.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";

const closed = { additionalProperties: false } as const;
const open = { additionalProperties: true } as const;

export const AuthorizationServerMetadata = t.Object(
  {
    issuer: t.String(),
    authorization_endpoint: t.String(),
    token_endpoint: t.String(),
    registration_endpoint: t.String(),
    revocation_endpoint: t.String(),
    response_types_supported: t.Array(t.String()),
    response_modes_supported: t.Array(t.String()),
    grant_types_supported: t.Array(t.String()),
    code_challenge_methods_supported: t.Array(t.Literal("S256")),
    token_endpoint_auth_methods_supported: t.Array(t.String()),
    revocation_endpoint_auth_methods_supported: t.Array(t.String()),
    scopes_supported: t.Array(t.String()),
    client_id_metadata_document_supported: t.Boolean(),
    authorization_response_iss_parameter_supported: t.Boolean(),
    service_documentation: t.String(),
  },
  { ...closed, description: "RFC 8414 authorization server metadata" },
);

export const ProtectedResourceMetadata = t.Object(
  {
    resource: t.String(),
    authorization_servers: t.Array(t.String()),
    scopes_supported: t.Array(t.String()),
    bearer_methods_supported: t.Array(t.String()),
    resource_name: t.String(),
  },
  { ...closed, description: "RFC 9728 protected resource metadata" },
);

export const GatewayPrmParams = t.Object({ id: t.String({ description: "mcps_… id of a gateway server" }) });

/** RFC 7591 client metadata: checked by the MCP SDK's schema in the handler (errors answered as RFC 7591 says). */
export const RegisterBody = t.Object({}, { ...open, description: "RFC 7591 client metadata: redirect_uris (https, or http on a loopback address), client_name, …; public clients (token_endpoint_auth_method none)" });

export const RegisteredClient = t.Object(
  {
    client_id: t.String(),
    client_id_issued_at: t.Integer(),
    redirect_uris: t.Array(t.String()),
    token_endpoint_auth_method: t.Literal("none"),
    grant_types: t.Array(t.String()),
    response_types: t.Array(t.String()),
  },
  { ...open, description: "RFC 7591 client information (no secret: a public client)" },
);

export const ClientQuery = t.Object({
  client_id: t.String({ minLength: 1, maxLength: 2048 }),
  redirect_uri: t.Optional(t.String({ maxLength: 2048 })),
});

export const ClientView = t.Object(
  {
    client_id: t.String(),
    client_name: Nullable(t.String()),
    kind: t.Union([t.Literal("registered"), t.Literal("metadata_document")]),
    redirect_uri_registered: Nullable(t.Boolean({ description: "whether redirect_uri (when given) is one the client registered" })),
  },
  closed,
);

export const AuthorizeQuery = t.Object(
  {
    response_type: t.Optional(t.String({ maxLength: 32 })),
    client_id: t.Optional(t.String({ maxLength: 2048 })),
    redirect_uri: t.Optional(t.String({ maxLength: 2048 })),
    code_challenge: t.Optional(t.String({ maxLength: 128 })),
    code_challenge_method: t.Optional(t.String({ maxLength: 16 })),
    state: t.Optional(t.String({ maxLength: 2048 })),
    scope: t.Optional(t.String({ maxLength: 1024 })),
    resource: t.Optional(t.String({ maxLength: 2048 })),
  },
  open,
);

export const ConsentQuery = t.Object({ request: t.String({ minLength: 1, maxLength: 64, description: "oar_… authorization request id" }) });

export const ConsentHtml = t.String({ description: "the consent page (text/html)" });

export const SiweQuery = t.Object({
  address: t.String({ maxLength: 42 }),
  chain_id: t.Numeric({ minimum: 1 }),
  nonce: t.String({ minLength: 8, maxLength: 64, pattern: "^[A-Za-z0-9]+$" }),
});

export const SiweMessageView = t.Object({ message: t.String({ description: "the EIP-4361 message to sign, then POST /v1/auth/verify" }) }, closed);

export const ApproveBody = t.Object(
  {
    request_id: t.String({ minLength: 1, maxLength: 64 }),
    approve: t.Boolean({ description: "false denies (the client gets access_denied)" }),
    csrf_token: t.String({ minLength: 1, maxLength: 128, description: "from the consent page" }),
    scopes: t.Optional(t.Array(t.String({ maxLength: 32 }), { maxItems: 32, description: "the scopes the grant's key carries (mcp always among them); default: those requested" })),
    monthly_cap_micro_usd: t.Optional(Nullable(MicroUsd({ description: "the grant's key's monthly spend cap; null: none" }))),
  },
  closed,
);

export const Approved = t.Object(
  {
    approved: t.Boolean(),
    redirect_to: t.String({ description: "send the browser here: the client's redirect URI with code (or error), state and iss" }),
  },
  closed,
);

/** Token and revocation requests: form-encoded or JSON, checked in the handler (errors are RFC 6749 bodies). */
export const TokenBody = t.Object({}, { ...open, description: "grant_type authorization_code (code, code_verifier, redirect_uri, client_id, resource) or refresh_token (refresh_token, client_id, scope, resource)" });

export const TokenResponse = t.Object(
  {
    access_token: t.String(),
    token_type: t.Literal("Bearer"),
    expires_in: t.Integer({ minimum: 1 }),
    refresh_token: t.String(),
    scope: t.String(),
  },
  closed,
);

export const RevokeBody = t.Object({}, { ...open, description: "token, token_type_hint?, client_id?" });

export const Revoked = t.Object({}, { ...closed, description: "always 200 (RFC 7009)" });

/**
 * OAuth clients: registered by RFC 7591 dynamic registration (public clients only: no secret,
 * token_endpoint_auth_method "none"), or named by an https URL whose Client ID Metadata Document
 * svc fetches through the outbound guard (the current MCP authorization specification). Either
 * way a client's redirect URIs are https, or http on a loopback address (RFC 8252 §7.3, where any
 * port matches since native apps pick theirs at run time).
 *
 * Metadata is validated with the MCP SDK's OAuthClientMetadataSchema (the same one its own
 * authorization server uses).
 */
import { InvalidClientError, InvalidClientMetadataError, InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { type OAuthClientMetadata, OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { newId } from "../../core/ids.ts";
import { readStreamLimited } from "../../core/body.ts";
import type { Context } from "../../context.ts";
import { resolveTarget, TargetRefused } from "../webhooks/index.ts";

export interface ClientRow {
  id: string;
  kind: "registered" | "metadata_document";
  name: string | null;
  redirect_uris: string;
  metadata: string;
  created_at: number;
  fetched_at: number | null;
}

export interface OAuthClient {
  id: string;
  kind: ClientRow["kind"];
  name: string | null;
  redirectUris: string[];
}

/** A metadata document is fetched again after this long. */
const DOCUMENT_TTL_MS = 60 * 60_000;
const DOCUMENT_MAX_BYTES = 64 * 1024;
const DOCUMENT_TIMEOUT_MS = 5_000;

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Why a redirect URI is refused, or null when it is acceptable. */
export function redirectUriProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw} is not a URL`;
  }
  if (url.hash) return `${raw} must not have a fragment`;
  if (url.username || url.password) return `${raw} must not carry credentials`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return `${raw} must be https, or http on a loopback address (127.0.0.1, [::1], localhost)`;
}

/** RFC 8252 §7.3: a loopback redirect URI matches whatever its port; anything else matches exactly. */
export function redirectMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  try {
    const a = new URL(registered);
    const b = new URL(presented);
    if (a.protocol !== "http:" || !LOOPBACK.has(a.hostname)) return false;
    return a.protocol === b.protocol && a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
  } catch {
    return false;
  }
}

function checkMetadata(value: unknown): OAuthClientMetadata {
  const parsed = OAuthClientMetadataSchema.safeParse(value);
  if (!parsed.success) throw new InvalidClientMetadataError(parsed.error.issues.map((i) => `${i.path.join(".") || "metadata"}: ${i.message}`).join("; "));
  const metadata = parsed.data;
  if (!metadata.redirect_uris.length) throw new InvalidClientMetadataError("redirect_uris: at least one is required");
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidClientMetadataError(`redirect_uris: ${problem}`);
  }
  if (metadata.token_endpoint_auth_method && metadata.token_endpoint_auth_method !== "none") {
    throw new InvalidClientMetadataError("token_endpoint_auth_method: svc registers public clients only (\"none\"); PKCE protects the code");
  }
  for (const grant of metadata.grant_types ?? []) {
    if (grant !== "authorization_code" && grant !== "refresh_token") throw new InvalidClientMetadataError(`grant_types: ${grant} is not supported (authorization_code, refresh_token)`);
  }
  for (const type of metadata.response_types ?? []) if (type !== "code") throw new InvalidClientMetadataError(`response_types: ${type} is not supported (code)`);
  return metadata;
}

const toClient = (row: ClientRow): OAuthClient => ({ id: row.id, kind: row.kind, name: row.name, redirectUris: JSON.parse(row.redirect_uris) as string[] });

/** RFC 7591 §3.2.1: the client information answered with 201. */
export function registerClient(ctx: Context, body: unknown): Record<string, unknown> {
  const metadata = checkMetadata(body);
  const id = newId("oc");
  const now = ctx.clock.now();
  const stored: OAuthClientMetadata = {
    ...metadata,
    token_endpoint_auth_method: "none",
    grant_types: metadata.grant_types?.length ? metadata.grant_types : ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
  ctx.db
    .query("INSERT INTO oauth_clients (id, kind, name, redirect_uris, metadata, created_at) VALUES (?, 'registered', ?, ?, ?, ?)")
    .run(id, metadata.client_name ?? null, JSON.stringify(metadata.redirect_uris), JSON.stringify(stored), now);
  return { ...stored, client_id: id, client_id_issued_at: Math.floor(now / 1000) };
}

const isDocumentUrl = (clientId: string): boolean => /^https?:\/\//i.test(clientId);

/** The client a client_id names; throws InvalidClientError for an unknown one. */
export async function findClient(ctx: Context, clientId: string): Promise<OAuthClient> {
  const row = ctx.db.query<ClientRow, [string]>("SELECT * FROM oauth_clients WHERE id = ?").get(clientId);
  if (row && (row.kind === "registered" || (row.fetched_at ?? 0) + DOCUMENT_TTL_MS > ctx.clock.now())) return toClient(row);
  if (isDocumentUrl(clientId) && ctx.config.oauth.client_metadata_documents) return toClient(await fetchMetadataDocument(ctx, clientId));
  throw new InvalidClientError("unknown client_id (register at POST /v1/oauth/register, or use an https URL of a client metadata document)");
}

/** A client known only by its id, without fetching anything (the token and revocation endpoints). */
export function knownClient(ctx: Context, clientId: string): OAuthClient | null {
  const row = ctx.db.query<ClientRow, [string]>("SELECT * FROM oauth_clients WHERE id = ?").get(clientId);
  return row ? toClient(row) : null;
}

/**
 * Fetches, checks and caches a Client ID Metadata Document: an https URL with a path (http on a
 * private address only where the operator allows private targets: tests, private deployments),
 * through the outbound guard, no redirects, at most 64 KiB, and its client_id must be its own URL.
 */
async function fetchMetadataDocument(ctx: Context, clientId: string): Promise<ClientRow> {
  const allowPrivate = ctx.config.webhooks.allow_private;
  const url = new URL(clientId);
  if (url.protocol !== "https:" && !allowPrivate) throw new InvalidClientError("a client_id URL must be https");
  if (url.pathname === "/" || url.hash) throw new InvalidClientError("a client_id URL must have a path and no fragment");
  let target;
  try {
    target = await resolveTarget(clientId, { allowPrivate });
  } catch (err) {
    if (err instanceof TargetRefused) throw new InvalidClientError(`the client metadata document URL is refused: it ${err.message}`);
    throw err;
  }
  let document: unknown;
  try {
    const res = await fetch(target.url, {
      headers: { accept: "application/json", ...(target.host ? { host: target.host } : {}) },
      redirect: "manual",
      signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS),
      ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
    } as RequestInit);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    document = JSON.parse(await readBounded(res, DOCUMENT_MAX_BYTES));
  } catch (err) {
    throw new InvalidClientError(`the client metadata document could not be fetched (${err instanceof Error ? err.message : "error"})`);
  }
  if (!document || typeof document !== "object" || (document as { client_id?: unknown }).client_id !== clientId) {
    throw new InvalidClientError("the client metadata document's client_id is not its own URL");
  }
  let metadata: OAuthClientMetadata;
  try {
    metadata = checkMetadata(document);
  } catch (err) {
    throw new InvalidClientError(`the client metadata document is not valid: ${err instanceof Error ? err.message : ""}`);
  }
  const now = ctx.clock.now();
  return ctx.db
    .query<ClientRow, (string | number | null)[]>(
      `INSERT INTO oauth_clients (id, kind, name, redirect_uris, metadata, created_at, fetched_at) VALUES (?, 'metadata_document', ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris, metadata = excluded.metadata, fetched_at = excluded.fetched_at
       RETURNING *`,
    )
    .get(clientId, metadata.client_name ?? null, JSON.stringify(metadata.redirect_uris), JSON.stringify(metadata), now, now)!;
}

async function readBounded(res: Response, max: number): Promise<string> {
  return new TextDecoder().decode(await readStreamLimited(res.body, max, () => new Error(`larger than ${max} bytes`)));
}

/** The redirect URI a request uses: the one given (matching a registered one) or the only one registered. */
export function chooseRedirect(client: OAuthClient, given: string | undefined): string {
  if (given === undefined || given === "") {
    if (client.redirectUris.length === 1) return client.redirectUris[0]!;
    throw new InvalidRequestError("redirect_uri is required: the client has several registered");
  }
  if (!client.redirectUris.some((r) => redirectMatches(r, given))) throw new InvalidRequestError("redirect_uri is not one the client registered");
  return given;
}

/** GET /v1/oauth/client: what a consent screen (or the client itself) may know about a client. */
export async function clientInfo(ctx: Context, clientId: string, redirectUri?: string) {
  const client = await findClient(ctx, clientId);
  return {
    client_id: client.id,
    client_name: client.name,
    kind: client.kind,
    redirect_uri_registered: redirectUri === undefined ? null : client.redirectUris.some((r) => redirectMatches(r, redirectUri)),
  };
}

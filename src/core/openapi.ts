/**
 * The OpenAPI 3.1 document, generated from the mounted routes' TypeBox schemas by the Elysia
 * OpenAPI plugin's generator, so it lists exactly what this deployment serves: an unmounted
 * group (no admin token, no metrics token) is absent from it. The server is the bare origin
 * because every path carries its own /v1 (spec §9.1).
 *
 * What the generator cannot see, this file adds from what the route was mounted with:
 * - its security requirement, from the class its guard is tagged with (core/auth.ts);
 * - the error statuses every route of its kind can answer, with the one error body (a body →
 *   400, 403 payload_denied, 413; parameters → 400; a path parameter → 404 for an unknown or
 *   another tenant's record; a credential → 401 and 403; public → 429), beside the statuses the
 *   route declares itself (core/schemas.ts errors());
 * - request bodies: the app-wide body hook parses every content type itself, which hides a
 *   route's body schema from the generator, so it is put back.
 */
import { toOpenAPISchema, unwrapSchema } from "@elysiajs/openapi/openapi";
import type { AnyElysia } from "elysia";
import { AUTH_CLASS, type AuthClass } from "./auth.ts";
import { ErrorBody } from "./schemas.ts";

type Operation = Record<string, unknown> & { responses?: Record<string, Record<string, unknown>> };
type Doc = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\/\*$/, "/{path}");

const SECURITY: Record<Exclude<AuthClass, "public">, string> = { api_key: "apiKey", session: "session", admin: "admin", metrics: "metrics", node: "node" };

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request: a field is missing or wrong (param names it), or the body is not valid JSON or is too deep",
  401: "No credential, or not a valid one for this route's class",
  402: "Payment required: insufficient credit (with x402 terms), a spend cap reached, or a circuit breaker tripped; branch on error.type",
  403: "Refused: a missing scope, a suspended account, a payload on the operator's denylist, or a rule of the route",
  404: "Unknown, hidden or another tenant's record (deliberately the same answer)",
  405: "The path does not take this method (Allow lists those it takes)",
  409: "Conflicts with the record's state",
  410: "Gone",
  412: "A precondition (If-Match) failed",
  413: "The body is larger than the deployment's limit",
  415: "Unsupported media type",
  422: "The request is well formed but cannot be carried out",
  429: "Too many requests: retry after retry_after_secs (Retry-After)",
  500: "A bug: the reference matches the operator's log line",
  501: "A feature switched off on this deployment",
  502: "The upstream failed",
  503: "Not available: not configured, not priced, or an upstream is unreachable",
  504: "The upstream did not answer in time",
};

const ERROR_REF = { $ref: "#/components/schemas/Error" };

/** A description a route wrote itself, not the generator's filler or the error body's own. */
const ownDescription = (description: unknown): boolean =>
  typeof description === "string" && !description.startsWith("Response for status") && description !== ErrorBody.description;

/**
 * The generator turns a nullable union of literals into {type: [string, null], enum: [...]}
 * without null among the values, which then refuses the null it means to allow.
 */
function nullInEnums(node: unknown): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) return node.forEach(nullInEnums);
  const schema = node as Record<string, unknown>;
  if (Array.isArray(schema.type) && schema.type.includes("null") && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  for (const value of Object.values(schema)) nullInEnums(value);
}
const errorResponse = (status: number) => ({ description: STATUS_TEXT[status] ?? `Error ${status}`, content: { "application/json": { schema: ERROR_REF } } });

interface RouteHooks {
  body?: unknown;
  params?: unknown;
  query?: unknown;
  response?: Record<string, unknown> | unknown;
  detail?: { requestBody?: unknown; security?: unknown };
  transform?: { fn?: Record<symbol, AuthClass | undefined> }[];
}

/** The class of the guard a route was mounted behind; null for none (GET /healthz: no credential, no rate limit). */
export function authClassOf(hooks: RouteHooks | undefined): AuthClass | null {
  for (const hook of hooks?.transform ?? []) {
    const cls = hook.fn?.[AUTH_CLASS];
    if (cls) return cls;
  }
  return null;
}

/** The statuses any route mounted like this one can answer, beside its own. */
export function baselineErrors(method: string, path: string, hooks: RouteHooks | undefined): number[] {
  const statuses = new Set<number>();
  const takesBody = hooks?.body !== undefined || ["POST", "PUT", "PATCH"].includes(method);
  if (takesBody) [400, 403, 413].forEach((s) => statuses.add(s));
  if (hooks?.params !== undefined || hooks?.query !== undefined) statuses.add(400);
  if (/[:*]/.test(path)) statuses.add(404);
  const cls = authClassOf(hooks);
  if (cls === "public") statuses.add(429);
  else if (cls !== null) statuses.add(401);
  if (cls === "api_key" || cls === "session") statuses.add(403);
  // The API-key guard settles an X-PAYMENT proof on every route it guards: a refused proof is
  // 402, a chain that answers wrongly 502, one that cannot be reached 503.
  if (cls === "api_key") [402, 502, 503].forEach((s) => statuses.add(s));
  return [...statuses];
}

/**
 * A route ending in * (the rest of the path: a sandbox file at any depth) becomes {path} in the
 * document, with its parameter described; OpenAPI has no multi-segment parameter, so the name
 * {path} at the end of a path is svc's convention for it (docs/api-conventions.md).
 */
function restOfPath(paths: Doc["paths"]): void {
  for (const key of Object.keys(paths)) {
    if (!key.endsWith("/*")) continue;
    const ops = paths[key]!;
    delete paths[key];
    for (const op of Object.values(ops)) {
      const params = ((op.parameters as { name: string; in: string }[] | undefined) ?? []).filter((p) => !(p.in === "path" && (p.name === "*" || p.name === "path")));
      op.parameters = [...params, { name: "path", in: "path", required: true, description: "the rest of the path, any depth (slashes included)", schema: { type: "string", minLength: 1 } }];
    }
    paths[`${key.slice(0, -1)}{path}`] = ops;
  }
}

export function buildOpenApiDocument(app: AnyElysia, info: { title: string; version: string; description: string; serverUrl: string }): Doc {
  const { paths, components } = toOpenAPISchema(app, { staticFile: false }, undefined, undefined, "3.1.0") as unknown as Pick<Doc, "paths"> & {
    components: Record<string, unknown>;
  };
  for (const route of app.routes) {
    const hooks = route.hooks as RouteHooks | undefined;
    const op = paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!op) continue;
    const cls = authClassOf(hooks);
    if (cls !== null && cls !== "public") op.security = [{ [SECURITY[cls]]: [] }];
    else delete op.security;
    const responses = (op.responses ??= {});
    for (const [status, res] of Object.entries(responses)) {
      // A route's own error statuses: the shared schema by reference, with what the status means.
      if (Number(status) >= 400) responses[status] = { ...errorResponse(Number(status)), ...(ownDescription(res.description) ? { description: res.description } : {}) };
    }
    for (const status of baselineErrors(route.method, route.path, hooks)) responses[String(status)] ??= errorResponse(status);
    // A route that validates loosely (any JSON) may still document the body it expects.
    if (hooks?.detail?.requestBody) {
      op.requestBody = hooks.detail.requestBody;
      continue;
    }
    const body = hooks?.body;
    if (!body || typeof body !== "object") continue;
    const requestBody = op.requestBody as { content?: Record<string, unknown> } | undefined;
    if (requestBody?.content && Object.keys(requestBody.content).length) continue;
    const schema = unwrapSchema(body as never, undefined, "input", "3.1.0");
    if (schema) op.requestBody = { required: true, content: { "application/json": { schema } } };
  }
  nullInEnums(paths);
  restOfPath(paths);
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      ...components,
      schemas: { ...((components.schemas as Record<string, unknown> | undefined) ?? {}), Error: JSON.parse(JSON.stringify(ErrorBody)) },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "API key: Bearer sk-svc_…" },
        session: { type: "http", scheme: "bearer", description: "Session: Bearer sess_… or the svc_session cookie" },
        admin: { type: "http", scheme: "bearer", description: "Operator admin token" },
        metrics: { type: "http", scheme: "bearer", description: "Operator metrics token" },
        node: { type: "http", scheme: "bearer", description: "Fleet node key: Bearer nk-svc_…" },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document, generated from the mounted routes' TypeBox schemas by the Elysia
 * OpenAPI plugin's generator, so it lists exactly what this deployment serves: an unmounted
 * group (no admin token, no metrics token) is absent from it. The server is the bare origin
 * because every path carries its own /v1 (spec §9.1).
 */
import { toOpenAPISchema, unwrapSchema } from "@elysiajs/openapi/openapi";
import type { AnyElysia } from "elysia";

type Doc = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\/\*$/, "/{path}");

export function buildOpenApiDocument(app: AnyElysia, info: { title: string; version: string; description: string; serverUrl: string }): Doc {
  const { paths, components } = toOpenAPISchema(app, { staticFile: false }, undefined, undefined, "3.1.0") as unknown as Pick<Doc, "paths"> & {
    components: Record<string, unknown>;
  };
  // Our app-wide body hook parses every content type itself, which hides the request body
  // schema from the generator; put each route's JSON body schema back.
  for (const route of app.routes) {
    const hooks = route.hooks as { body?: unknown; detail?: { requestBody?: unknown } } | undefined;
    const body = hooks?.body;
    const op = paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!op) continue;
    // A route that validates loosely (any JSON) may still document the body it expects.
    if (hooks?.detail?.requestBody) {
      op.requestBody = hooks.detail.requestBody;
      continue;
    }
    if (!body || typeof body !== "object") continue;
    const requestBody = op.requestBody as { content?: Record<string, unknown> } | undefined;
    if (requestBody?.content && Object.keys(requestBody.content).length) continue;
    const schema = unwrapSchema(body as never, undefined, "input", "3.1.0");
    if (schema) op.requestBody = { required: true, content: { "application/json": { schema } } };
  }
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      ...components,
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "API key: Bearer sk-svc_…" },
        session: { type: "http", scheme: "bearer", description: "Session: Bearer sess_… or the svc_session cookie" },
        admin: { type: "http", scheme: "bearer", description: "Operator admin token" },
        metrics: { type: "http", scheme: "bearer", description: "Operator metrics token" },
      },
    },
  };
}

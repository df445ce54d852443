/**
 * Root-level routes: GET / (banner), GET /healthz (liveness), GET /openapi.json and
 * GET /v1/openapi.json (the generated OpenAPI 3.1 document).
 */
import { Elysia, t, type AnyElysia } from "elysia";
import { buildOpenApiDocument } from "./core/openapi.ts";
import type { Context } from "./context.ts";
import { guards } from "./guards.ts";
import { NAME } from "./version.ts";

const DESCRIPTION = "Self-hosted gateway for autonomous software agents: metered inference, sandboxes, state, memory, MCP tools, prepaid credit and signed receipts.";

const Banner = t.Object(
  {
    name: t.String(),
    version: t.String(),
    description: t.String(),
    signer: t.String({ pattern: "^0x[0-9a-fA-F]{40}$", description: "Address whose EIP-191 signatures receipts carry" }),
    links: t.Object({ openapi: t.String({ format: "uri" }), status: t.String({ format: "uri" }), health: t.String({ format: "uri" }) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

const Open = t.Object({}, { additionalProperties: true });
const METHOD = "^(get|put|post|delete|options|head|patch|trace)$";

/**
 * The document itself (core/openapi.ts): its top level is fixed; paths, schemas and operations
 * are as open as OpenAPI 3.1 makes them.
 */
const OpenApiDocument = t.Object(
  {
    openapi: t.Literal("3.1.0"),
    info: t.Object({ title: t.String(), version: t.String(), description: t.String() }, { additionalProperties: false }),
    servers: t.Array(t.Object({ url: t.String({ format: "uri" }) }, { additionalProperties: false }), { minItems: 1, maxItems: 1 }),
    paths: t.Record(t.String({ pattern: "^/" }), t.Record(t.String({ pattern: METHOD }), Open, { additionalProperties: false }), {
      additionalProperties: false,
      description: "path → method → operation",
    }),
    components: t.Object(
      {
        schemas: t.Record(t.String(), Open),
        securitySchemes: t.Record(t.String(), Open),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false, description: "The OpenAPI 3.1 document of what this deployment serves" },
);

const OPENAPI_DETAIL = { summary: "OpenAPI 3.1 document", tags: ["meta"] };

export function metaRoutes(ctx: Context, app: () => AnyElysia) {
  let doc: ReturnType<typeof buildOpenApiDocument> | undefined;
  const openapi = () =>
    (doc ??= buildOpenApiDocument(app(), {
      title: NAME,
      version: ctx.version,
      description: DESCRIPTION,
      serverUrl: new URL(ctx.config.public_url).origin,
    }));
  // The builder types the document loosely; OpenApiDocument is what it is (and Elysia checks it).
  const served = () => openapi() as unknown as typeof OpenApiDocument.static;
  const base = ctx.config.public_url;

  // Liveness only: answers while the process can serve. Not rate limited, so probes never flap.
  const liveness = new Elysia().get("/healthz", () => new Response("ok", { headers: { "content-type": "text/plain; charset=utf-8" } }), {
    response: { 200: t.Literal("ok", { description: "text/plain: the process serves" }) },
    detail: { summary: "Liveness probe", tags: ["meta"] },
  });

  const documents = new Elysia()
    .use(guards.public(ctx))
    .get(
      "/",
      () => ({
        name: NAME,
        version: ctx.version,
        description: DESCRIPTION,
        signer: ctx.signer.address,
        links: {
          openapi: `${base}/openapi.json`,
          status: `${base}/v1/status`,
          health: `${base}/healthz`,
        },
      }),
      { response: { 200: Banner }, detail: { summary: "Service banner", tags: ["meta"] } },
    )
    .get("/openapi.json", served, { response: { 200: OpenApiDocument }, detail: OPENAPI_DETAIL })
    .get("/v1/openapi.json", served, { response: { 200: OpenApiDocument }, detail: OPENAPI_DETAIL });

  return new Elysia().use(liveness).use(documents);
}

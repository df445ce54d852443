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

const Banner = t.Object({
  name: t.String(),
  version: t.String(),
  description: t.String(),
  signer: t.String({ description: "Address whose EIP-191 signatures receipts carry" }),
  links: t.Record(t.String(), t.String()),
});

export function metaRoutes(ctx: Context, app: () => AnyElysia) {
  let doc: ReturnType<typeof buildOpenApiDocument> | undefined;
  const openapi = () =>
    (doc ??= buildOpenApiDocument(app(), {
      title: NAME,
      version: ctx.version,
      description: DESCRIPTION,
      serverUrl: new URL(ctx.config.public_url).origin,
    }));
  const base = ctx.config.public_url;

  // Liveness only: answers while the process can serve. Not rate limited, so probes never flap.
  const liveness = new Elysia().get("/healthz", () => new Response("ok", { headers: { "content-type": "text/plain; charset=utf-8" } }), {
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
      { response: Banner, detail: { summary: "Service banner", tags: ["meta"] } },
    )
    .get("/openapi.json", openapi, { detail: { summary: "OpenAPI 3.1 document", tags: ["meta"] } })
    .get("/v1/openapi.json", openapi, { detail: { summary: "OpenAPI 3.1 document", tags: ["meta"] } });

  return new Elysia().use(liveness).use(documents);
}

/**
 * buildApp(ctx): the HTTP surface. One body hook, one error handler, one telemetry hook, the
 * root-level routes (banner, liveness, OpenAPI), then every area's route groups in the order
 * of src/domains/index.ts, each with its authentication class. A group whose credential or
 * feature is not configured is not mounted: it answers 404 and is absent from the OpenAPI
 * document.
 *
 * Finding a route's code: docs/routes.md maps every method and path to its area and file.
 */
import { type AnyElysia, Elysia } from "elysia";
import type { Context } from "./context.ts";
import { arrivalOf, markArrival } from "./core/arrivals.ts";
import { bodyHook } from "./core/body.ts";
import { errorHandler } from "./core/error-handler.ts";
import { type MethodsOf, methodsOf } from "./core/route-methods.ts";
import { type BodyKind, bodyKinds, checkBodyKind } from "./core/body-shape.ts";
import { isDenied } from "./domains/admin/index.ts";
import { paymentTerms } from "./domains/billing/index.ts";
import { modules } from "./domains/index.ts";
import { requestStats } from "./domains/reports/index.ts";
import { metaRoutes } from "./meta-routes.ts";
import { enabledModules } from "./module.ts";

export function buildApp(ctx: Context): AnyElysia {
  // Built from the mounted routes on first use (the routes are mounted below).
  let methods: MethodsOf | undefined;
  let kinds: Map<string, BodyKind> | undefined;
  const routeLimits = new Map(enabledModules(modules, ctx.config).flatMap((m) => Object.entries(m.bodyLimits?.(ctx) ?? {})));
  const app: AnyElysia = new Elysia({ normalize: false })
    .onRequest(({ request }) => {
      markArrival(request);
    })
    // The operator's denylist (admin) is checked on every body before any handler sees it.
    .onParse({ as: "global" }, bodyHook({
        maxBytes: ctx.config.max_body_bytes,
        routeLimits,
        maxJsonDepth: ctx.config.max_json_depth,
        maxJsonElements: ctx.config.max_json_elements,
        isDenied: (sha) => isDenied(ctx, sha),
      }),)
    // A body of the wrong kind (null, an array, fields on a route that takes none) is a 400; after
    // authentication (a caller without credentials learns nothing of the route), before the handler.
    .onBeforeHandle({ as: "global" }, ({ body, request, route }) => checkBodyKind((kinds ??= bodyKinds(app.routes)).get(`${request.method} ${route}`), body))
    // x402 terms ride on 402 insufficient_credit from any route: added here, in the one error handler.
    .onError({ as: "global" }, errorHandler(ctx.log, { decorate: paymentTerms(ctx), methodsOf: () => (methods ??= methodsOf(app.routes)) }))
    .onAfterResponse({ as: "global" }, ({ request, route, set }) => {
      const t0 = arrivalOf(request);
      const status = typeof set.status === "number" ? set.status : 200;
      if (t0 !== undefined) ctx.telemetry.observeRequest(request.method, route || "unmatched", status, (performance.now() - t0) / 1000);
      if (t0 !== undefined) requestStats(ctx).record(request.method, route || "unmatched", status, performance.now() - t0);
    })
    .use(metaRoutes(ctx, () => app));

  for (const m of enabledModules(modules, ctx.config)) for (const group of m.routes?.(ctx) ?? []) app.use(group);
  return app;
}

/**
 * buildApp(ctx): the HTTP surface. One body hook, one error handler, one telemetry hook, then
 * every route group, each with its authentication class. A group whose credential is not
 * configured is not mounted: it answers 404 and is absent from the OpenAPI document.
 *
 * Finding a route's code: /v1/<area>/… lives in src/domains/<area>/routes.ts.
 */
import { type AnyElysia, Elysia } from "elysia";
import type { Context } from "./context.ts";
import { bodyHook } from "./core/body.ts";
import { errorHandler } from "./core/error-handler.ts";
import { isDenied } from "./domains/admin/denylist.ts";
import { adminRoutes } from "./domains/admin/routes.ts";
import { anchorRoutes } from "./domains/anchors/routes.ts";
import { passkeyRoutes } from "./domains/auth/passkey-routes.ts";
import { authRoutes } from "./domains/auth/routes.ts";
import { alertRoutes } from "./domains/billing/alert-routes.ts";
import { planRoutes } from "./domains/billing/plan-routes.ts";
import { billingRoutes } from "./domains/billing/routes.ts";
import { depositRoutes } from "./domains/billing/deposit-routes.ts";
import { paymentTerms } from "./domains/billing/x402.ts";
import { creditRoutes } from "./domains/credit/routes.ts";
import { explorerRoutes } from "./domains/explorer/routes.ts";
import { ghostRoutes } from "./domains/ghosts/routes.ts";
import { modelRoutes } from "./domains/inference/model-routes.ts";
import { assistantRoutes } from "./domains/inference/assistant-routes.ts";
import { inferenceRoutes } from "./domains/inference/routes.ts";
import { keyRoutes } from "./domains/keys/routes.ts";
import { mandateRoutes } from "./domains/mandates/routes.ts";
import { metaRoutes } from "./domains/meta/routes.ts";
import { metricsRoutes } from "./domains/metrics/routes.ts";
import { orgRoutes } from "./domains/orgs/routes.ts";
import { receiptRoutes } from "./domains/receipts/routes.ts";
import { requestStats } from "./domains/reports/request-stats.ts";
import { reportRoutes } from "./domains/reports/routes.ts";
import { runRoutes } from "./domains/runs/routes.ts";
import { statusRoutes } from "./domains/status/routes.ts";
import { usageRoutes } from "./domains/usage/routes.ts";
import { webhookRoutes } from "./domains/webhooks/routes.ts";

export function buildApp(ctx: Context): AnyElysia {
  const started = new WeakMap<Request, number>();
  const app: AnyElysia = new Elysia({ normalize: false })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onParse({ as: "global" }, bodyHook({ maxBytes: ctx.config.max_body_bytes, isDenied: (sha) => isDenied(ctx, sha) }))
    // x402 terms ride on 402 insufficient_credit from any route: added here, in the one error handler.
    .onError({ as: "global" }, errorHandler(ctx.log, paymentTerms(ctx)))
    .onAfterResponse({ as: "global" }, ({ request, route, set }) => {
      const t0 = started.get(request);
      const status = typeof set.status === "number" ? set.status : 200;
      if (t0 !== undefined) ctx.telemetry.observeRequest(request.method, route || "unmatched", status, (performance.now() - t0) / 1000);
      if (t0 !== undefined) requestStats(ctx).record(request.method, route || "unmatched", status, performance.now() - t0);
    })
    .use(metaRoutes(ctx, () => app))
    .use(statusRoutes(ctx));

  // Route groups. A group whose configuration is absent is not mounted (404, absent from OpenAPI).
  if (ctx.config.passkeys.rp_id && ctx.config.passkeys.origin) app.use(passkeyRoutes(ctx));
  app.use(orgRoutes(ctx));
  app.use(authRoutes(ctx));
  app.use(keyRoutes(ctx));
  app.use(creditRoutes(ctx));
  app.use(depositRoutes(ctx));
  app.use(planRoutes(ctx));
  app.use(alertRoutes(ctx));
  app.use(billingRoutes(ctx));
  app.use(mandateRoutes(ctx));
  app.use(ghostRoutes(ctx));
  app.use(usageRoutes(ctx));
  app.use(reportRoutes(ctx));
  app.use(runRoutes(ctx));
  app.use(anchorRoutes(ctx));
  app.use(explorerRoutes(ctx));
  app.use(receiptRoutes(ctx));
  app.use(webhookRoutes(ctx));
  app.use(modelRoutes(ctx));
  app.use(inferenceRoutes(ctx));

  if (ctx.config.assistant.model) app.use(assistantRoutes(ctx));
  if (ctx.config.admin.token_sha256) app.use(adminRoutes(ctx));
  if (ctx.config.metrics.token_sha256) app.use(metricsRoutes(ctx));
  return app;
}

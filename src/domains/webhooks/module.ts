/**
 * Outbound webhooks: subscriptions and durable, signed, at-least-once delivery from the outbox (/v1/webhooks; `svc webhooks …`).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { webhooksGroup } from "./cli.ts";
import { webhooksConfig } from "./config.ts";
import { registerWebhookJobs } from "./delivery.ts";
import { webhookRoutes } from "./routes.ts";

export const webhooksModule = defineModule({
  name: "webhooks",
  config: webhooksConfig,
  routes: (ctx) => [webhookRoutes(ctx)],
  // Outbox events fan out to webhooks and are delivered by attempt jobs; delivery rows are pruned after 30 days.
  jobs: registerWebhookJobs,
  cli: [webhooksGroup],
});

/**
 * Metered inference: OpenAI- and Anthropic-shaped routes over configured providers, the model
 * catalogue, and the keyless assistant (`svc providers …`, `svc models …`).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { adminCatalogRoutes } from "./admin-routes.ts";
import { assistantRoutes } from "./assistant-routes.ts";
import { Catalog } from "./catalog.ts";
import { modelsGroup } from "./cli-models.ts";
import { providersGroup } from "./cli-providers.ts";
import { inferenceConfig } from "./config.ts";
import { modelRoutes } from "./model-routes.ts";
import { inferenceRoutes } from "./routes.ts";
import { warmTokenizer } from "./tokens.ts";

export const inferenceModule = defineModule({
  name: "inference",
  config: inferenceConfig,
  wire(ctx) {
    ctx.catalog = new Catalog(
      { providers: ctx.config.providers, models: ctx.config.models },
      { configPath: ctx.config.config_path, sealer: ctx.sealer, clock: ctx.clock, log: ctx.log },
    );
  },
  routes: (ctx) => [
    modelRoutes(ctx),
    inferenceRoutes(ctx),
    ...(ctx.config.assistant.model ? [assistantRoutes(ctx)] : []),
    // The operator's view of the catalogue, like every /v1/admin group only with an admin token.
    ...(ctx.config.admin.token_sha256 ? [adminCatalogRoutes(ctx)] : []),
  ],
  serve: {
    // The tokenizer's tables take ~300 ms to load: before the first request, not during it.
    start: () => warmTokenizer(),
  },
  cli: [providersGroup, modelsGroup],
});

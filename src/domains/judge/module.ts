/**
 * The multi-model judge: verdicts from 1-5 juror models, stored content-free with signed fingerprints.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { judgeConfig } from "./config.ts";
import { judgeRoutes } from "./routes.ts";

export const judgeModule = defineModule({ name: "judge", config: judgeConfig, routes: (ctx) => judgeRoutes(ctx) });

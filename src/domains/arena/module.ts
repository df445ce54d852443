/**
 * The arena: receipted benchmark runs of models and engines over versioned eval suites (/v1/arena/*; docs/arena.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { arenaGroup } from "./cli.ts";
import { arenaRoutes } from "./routes.ts";

export const arenaModule = defineModule({ name: "arena", routes: (ctx) => arenaRoutes(ctx), cli: [arenaGroup] });

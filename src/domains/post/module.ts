/**
 * Agent post: paid cross-account mail between handles (/v1/post/*; docs/post.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { postConfig } from "./config.ts";
import { postRoutes } from "./routes.ts";

export const postModule = defineModule({ name: "post", config: postConfig, routes: (ctx) => postRoutes(ctx) });

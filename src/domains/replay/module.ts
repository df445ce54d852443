/**
 * Replay capsules: what is needed to run a call again, sealed, and the replay's verdict (/v1/replay/*; docs/replay.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { replayRoutes } from "./routes.ts";

export const replayModule = defineModule({ name: "replay", routes: (ctx) => [replayRoutes(ctx)] });

/** Usage: metering events, summaries, statements, CSV and the live SSE feed (/v1/usage/*). */
import { defineModule } from "../../module.ts";
import { usageRoutes } from "./routes.ts";

export const usageModule = defineModule({ name: "usage", routes: (ctx) => [usageRoutes(ctx)] });

export { closedPeriod, instant, orderedPeriod, type Period, TIME_ERROR } from "./period.ts";

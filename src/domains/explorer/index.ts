/** GET /v1/explorer: public aggregate proof counts, recently shared receipts and anchors. */
import { defineModule } from "../../module.ts";
import { explorerRoutes } from "./routes.ts";

export const explorerModule = defineModule({ name: "explorer", routes: (ctx) => [explorerRoutes(ctx)] });

/** GET /v1/credit: an API key's view of its account's credit and its own limits. */
import { defineModule } from "../../module.ts";
import { creditRoutes } from "./routes.ts";

export const creditModule = defineModule({ name: "credit", routes: (ctx) => [creditRoutes(ctx)] });

/** Mandates: bounded spending authority minted as a constrained sub-key (/v1/mandates). */
import { defineModule } from "../../module.ts";
import { mandateRoutes } from "./routes.ts";

export const mandatesModule = defineModule({ name: "mandates", routes: (ctx) => [mandateRoutes(ctx)] });

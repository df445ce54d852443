/** GET /v1/credit: an agent's view of the money it may spend (API key with billing:read). */
import { Elysia } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { creditPosition } from "./service.ts";

export function creditRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1" })
    .use(guards.apiKey(ctx, "billing:read"))
    .get(
      "/credit",
      ({ principal }) => creditPosition(ctx, principal),
      {
        // 402 payment_rejected, 502 wrong_chain, 503 chain_unavailable: an x402 proof (X-PAYMENT /
        // PAYMENT-SIGNATURE) is checked by the API-key guard on every API-key route (src/guards.ts).
        response: { 200: M.Credit, ...errors(402, 502, 503) },
        detail: { summary: "Balance, held and spendable credit (micro-USD), and this key's monthly position", tags: ["credit"], security: [{ apiKey: [] }] },
      },
    );
}

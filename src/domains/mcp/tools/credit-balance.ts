/** credit_balance: GET /v1/credit as a tool (the credit area's creditPosition). */
import { Type as T } from "@sinclair/typebox";
import { Credit, creditPosition } from "../../credit/index.ts";
import { defineTool, structured } from "./types.ts";

export const creditBalance = defineTool<Record<string, never>>({
  name: "credit_balance",
  title: "Credit balance",
  description:
    "The account's prepaid credit in integer micro-USD (millionths of a dollar): balance, held (reserved for work in flight) and spendable (balance − held), and this key's monthly position (cap, spent, held, remaining, frozen). Free; call it before expensive work.",
  scope: "billing:read",
  input: T.Object({}, { additionalProperties: false }),
  output: Credit,
  metering: "mcp_call",
  readOnly: true,
  run: async ({ ctx, principal }) => ({ result: structured(creditPosition(ctx, principal)) }),
});

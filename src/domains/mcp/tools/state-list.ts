/** state_list: GET /v1/state as a tool — keys only, never values (the state area's listStateKeys; areas.ts). */
import { Type as T } from "@sinclair/typebox";
import { areaService } from "./areas.ts";
import { defineTool, notAvailable, structured } from "./types.ts";
import { Namespace } from "./state-schema.ts";

export const stateList = defineTool<{ namespace?: string }>({
  name: "state_list",
  title: "List state keys",
  description: "The keys (never the values) of the account's durable key-value state in a namespace (default \"default\"), at most 1000.",
  scope: "state",
  input: T.Object({ namespace: T.Optional(Namespace) }, { additionalProperties: false }),
  metering: "mcp_call",
  readOnly: true,
  run: async ({ ctx, principal }, args) => {
    const state = areaService("state", ctx);
    if (!state) return notAvailable("state_list", "state");
    return { result: structured(state.listStateKeys(ctx, principal, args)) };
  },
});

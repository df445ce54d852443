/** state_set: PUT /v1/state/:key as a tool (the state area's putState; areas.ts). */
import { Type as T } from "@sinclair/typebox";
import { areaService } from "./areas.ts";
import { defineTool, notAvailable, structured } from "./types.ts";
import { Key, Namespace } from "./state-schema.ts";

export const stateSet = defineTool<{ key: string; value: unknown; namespace?: string }>({
  name: "state_set",
  title: "Write a state value",
  description: "Store a JSON value under a key of the account's durable key-value state (sealed at rest), in a namespace (default \"default\"); an existing value is replaced.",
  scope: "state",
  input: T.Object({ key: Key, value: T.Unknown({ description: "any JSON value" }), namespace: T.Optional(Namespace) }, { additionalProperties: false, required: ["key", "value"] }),
  metering: "mcp_call",
  run: async ({ ctx, principal }, args) => {
    const state = areaService("state", ctx);
    if (!state) return notAvailable("state_set", "state");
    return { result: structured(state.putState(ctx, principal, args)) };
  },
});

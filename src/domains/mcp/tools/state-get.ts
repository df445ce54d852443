/** state_get: GET /v1/state/:key as a tool (the state area's getState; areas.ts). */
import { Type as T } from "@sinclair/typebox";
import { areaService } from "./areas.ts";
import { defineTool, notAvailable, structured, toolError } from "./types.ts";
import { Key, Namespace } from "./state-schema.ts";

export const stateGet = defineTool<{ key: string; namespace?: string }>({
  name: "state_get",
  title: "Read a state value",
  description: "Read one value of the account's durable key-value state (sealed at rest) by key, in a namespace (default \"default\"). An absent key is an error naming it.",
  scope: "state",
  input: T.Object({ key: Key, namespace: T.Optional(Namespace) }, { additionalProperties: false }),
  metering: "mcp_call",
  readOnly: true,
  run: async ({ ctx, principal }, args) => {
    const state = areaService("state", ctx);
    if (!state) return notAvailable("state_get", "state");
    const found = state.getState(ctx, principal, args);
    return { result: found ? structured(found) : toolError(`no state value under key "${args.key}"`, { type: "not_found" }) };
  },
});

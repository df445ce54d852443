/** memory_search: POST /v1/memory/collections/:id/search as a tool (the memory area's searchCollection; areas.ts). */
import { Type as T } from "@sinclair/typebox";
import { receiptMeta } from "../metering.ts";
import { areaService } from "./areas.ts";
import { defineTool, notAvailable, structured } from "./types.ts";

export const memorySearch = defineTool<{ collection_id: string; query: string; top_k?: number }>({
  name: "memory_search",
  title: "Search a memory collection",
  description:
    "Find the chunks of a memory collection most similar to a query (GET /v1/memory/collections lists them). The query is embedded and billed as embedding usage, with a signed receipt in _meta.",
  scope: "memory",
  input: T.Object(
    {
      collection_id: T.String({ minLength: 1, maxLength: 64 }),
      query: T.String({ minLength: 1, maxLength: 100_000 }),
      top_k: T.Optional(T.Integer({ minimum: 1, maximum: 50 })),
    },
    { additionalProperties: false },
  ),
  metering: "self",
  readOnly: true,
  run: async ({ ctx, principal, signal, runId }, args) => {
    const memory = areaService("memory", ctx);
    if (!memory) return notAvailable("memory_search", "memory");
    const { results, settlement } = await memory.searchCollection(ctx, principal, { ...args, signal, runId });
    return { result: structured({ results }), receipt: settlement ? receiptMeta(settlement) : null };
  },
});

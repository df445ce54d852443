/**
 * svc memory list|stats: operators looking at an account's memory collections. Neither shows
 * document text.
 */
import { accountOption, type Command, type Group, locationOptions, requireAccount } from "../../cli/command.ts";
import { getAccount } from "../accounts/index.ts";
import { getCollectionView, memoryUsage } from "./service.ts";

const json = { type: "boolean", description: "print JSON" } as const;
const account = accountOption;

const list: Command = {
  name: "memory list",
  summary: "An account's memory collections: model, dimension, documents, chunks",
  options: { ...locationOptions, json, account },
  run: ({ values }, host) => {
    const accountId = requireAccount(values);
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const { collections } = memoryUsage(ctx, accountId);
      if (values.json) return void console.log(JSON.stringify(collections, null, 2));
      if (!collections.length) return void console.log("no collections");
      for (const c of collections) {
        console.log(`${c.id}  ${c.name}  ${c.embedding_model} (${c.dimension ?? "?"}d)  ${c.documents} docs  ${c.chunks} chunks${c.seal_text ? "  sealed text" : ""}`);
      }
    });
  },
};

const stats: Command = {
  name: "memory stats",
  summary: "Totals of an account's memory (or of one collection): documents, chunks, tokens",
  args: "[COLLECTION_ID]",
  positionals: { min: 0, max: 1 },
  options: { ...locationOptions, json, account },
  run: ({ values, positionals }, host) => {
    const accountId = requireAccount(values);
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      if (positionals[0]) {
        const c = getCollectionView(ctx, accountId, positionals[0]);
        if (values.json) return void console.log(JSON.stringify(c, null, 2));
        console.log(`${c.id}  ${c.name}`);
        console.log(`model ${c.embedding_model}, dimension ${c.dimension ?? "not fixed yet"}, chunks of ${c.chunk_size} tokens (overlap ${c.chunk_overlap})${c.seal_text ? ", text sealed" : ""}`);
        console.log(`${c.documents} documents, ${c.chunks} chunks, ${c.tokens} tokens`);
        return;
      }
      const { totals } = memoryUsage(ctx, accountId);
      if (values.json) return void console.log(JSON.stringify(totals, null, 2));
      console.log(`${totals.collections} of ${totals.limit} collections, ${totals.documents} documents, ${totals.chunks} chunks, ${totals.tokens} tokens`);
    });
  },
};

export const memoryGroup: Group = { name: "memory", summary: "Memory collections: list an account's, show totals", commands: [list, stats] };

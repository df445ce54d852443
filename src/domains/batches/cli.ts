/**
 * svc batches list: operators looking at an account's batches — status, line counts, cost,
 * files (never a line's content).
 */
import { accountOption, type Command, type Group, locationOptions, requireAccount } from "../../cli/command.ts";
import { getAccount } from "../accounts/index.ts";
import { BATCH_LIMIT, listBatches } from "./service.ts";

const list: Command = {
  name: "batches list",
  summary: "An account's batches, newest first (at most 100): status, lines done and failed, cost, files",
  options: { ...locationOptions, json: { type: "boolean", description: "print JSON" }, account: accountOption },
  run: ({ values }, host) => {
    const accountId = requireAccount(values);
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const { data } = listBatches(ctx, accountId, BATCH_LIMIT.max);
      if (values.json) return void console.log(JSON.stringify({ batches: data }, null, 2));
      if (!data.length) return void console.log("no batches");
      for (const b of data) {
        const c = b.request_counts;
        const files = [b.output_file_id && `output ${b.output_file_id}`, b.error_file_id && `errors ${b.error_file_id}`].filter(Boolean).join(", ");
        console.log(
          `${b.id}  ${b.status}${b.error_class ? ` (${b.error_class})` : ""}  ${b.endpoint}  ${c.completed}/${c.total} done, ${c.failed} failed  ${b.cost_micro_usd} µUSD  ${new Date(b.created_at * 1000).toISOString()}${files ? `  ${files}` : ""}`,
        );
      }
    });
  },
};

export const batchesGroup: Group = { name: "batches", summary: "Batches: list an account's batches", commands: [list] };

/**
 * svc state list|get: operators looking at an account's state. list shows key names, versions
 * and sizes (never values); get opens one value, and is recorded in the audit log because it
 * reads what the account sealed.
 */
import { accountOption, type Command, type Group, locationOptions, requireAccount, str, UsageError } from "../../cli/command.ts";
import { getAccount } from "../accounts/index.ts";
import { DEFAULT_NAMESPACE, MAX_KEYS_LISTED } from "./limits.ts";
import { getState, listStateKeyInfo, stateUsage } from "./service.ts";

const json = { type: "boolean", description: "print JSON" } as const;
const account = accountOption;

const list: Command = {
  name: "state list",
  summary: "An account's state keys: names, versions, sizes (never values)",
  options: {
    ...locationOptions,
    json,
    account,
    namespace: { type: "string", value: "NS", description: "one namespace (default: every namespace)" },
    limit: { type: "string", value: "N", description: "at most N keys (default 1000)" },
  },
  run: ({ values }, host) => {
    const accountId = requireAccount(values);
    const limitText = str(values.limit);
    if (limitText !== undefined && !/^[1-9]\d*$/.test(limitText)) throw new UsageError("--limit must be a whole number above 0");
    const limit = limitText ? Number(limitText) : MAX_KEYS_LISTED;
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const usage = stateUsage(ctx, accountId);
      const keys = listStateKeyInfo(ctx, accountId, { namespace: str(values.namespace), limit });
      if (values.json) return void console.log(JSON.stringify({ usage, keys }, null, 2));
      console.log(`${usage.keys} of ${usage.limit} keys in ${usage.namespaces} namespace(s), ${usage.value_bytes} bytes of values`);
      for (const k of keys) console.log(`${k.namespace}  ${k.key}  v${k.version}  ${k.value_bytes} B  updated ${k.updated_at}`);
      if (keys.length === limit) console.log(`(the first ${limit} shown; --limit N for more)`);
    });
  },
};

const get: Command = {
  name: "state get",
  summary: "Open one state value of an account (recorded in the audit log)",
  args: "KEY",
  positionals: { min: 1, max: 1 },
  options: { ...locationOptions, json, account, namespace: { type: "string", value: "NS", description: `the key's namespace (default "${DEFAULT_NAMESPACE}")` } },
  run: ({ values, positionals }, host) => {
    const accountId = requireAccount(values);
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const { entry } = getState(ctx, accountId, positionals[0]!, str(values.namespace) ?? DEFAULT_NAMESPACE);
      ctx.audit.record("cli", "state.get", accountId, { namespace: entry.namespace, key: entry.key });
      if (values.json) return void console.log(JSON.stringify(entry, null, 2));
      console.log(`${entry.namespace}/${entry.key}  v${entry.version}  updated ${entry.updated_at}`);
      console.log(JSON.stringify(entry.value, null, 2));
    });
  },
};

export const stateGroup: Group = { name: "state", summary: "Sealed state: list an account's keys, open one value", commands: [list, get] };

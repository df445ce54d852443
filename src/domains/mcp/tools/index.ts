/**
 * The tools of svc's own MCP server, in the order tools/list shows them. A new tool is one file
 * here and one line below.
 */
import { chat } from "./chat.ts";
import { creditBalance } from "./credit-balance.ts";
import { memorySearch } from "./memory-search.ts";
import { sandboxRun } from "./sandbox-run.ts";
import { stateGet } from "./state-get.ts";
import { stateList } from "./state-list.ts";
import { stateSet } from "./state-set.ts";
import type { SvcTool } from "./types.ts";

export const TOOLS: readonly SvcTool[] = [creditBalance, chat, sandboxRun, stateGet, stateSet, stateList, memorySearch];
export type { SvcTool } from "./types.ts";

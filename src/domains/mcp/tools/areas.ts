/**
 * The services of the areas the sandbox, state and memory tools call. Those areas are built on
 * other branches and land after this one; until then each is null here and its tools answer
 * "not available on this deployment" (a tool error, never a fake result).
 *
 * INTEGRATION (mechanical): when an area lands, import its functions from its front door and
 * set its entry below, e.g.
 *
 *   import { runSandbox } from "../../sandboxes/index.ts";
 *   import { deleteState, getState, listStateKeys, putState } from "../../state/index.ts";
 *   import { searchCollection } from "../../memory/index.ts";
 *   const SERVICES: AreaServices = { sandboxes: { runSandbox }, state: { getState, putState, listStateKeys }, memory: { searchCollection } };
 *
 * The signatures each tool expects are the interfaces below (the same functions the areas' HTTP
 * routes call: POST /v1/sandboxes, PUT/GET /v1/state/:key, GET /v1/state, POST
 * /v1/memory/collections/:id/search). Where an area's final signature differs, only the tool
 * file that calls it changes.
 */
import type { Context } from "../../../context.ts";
import type { ApiKeyPrincipal } from "../../keys/index.ts";
import type { Settlement } from "../../../core/meter.ts";

/** POST /v1/sandboxes (one-shot run): reserves, runs under bubblewrap, settles; its receipt. */
export interface SandboxService {
  runSandbox(
    ctx: Context,
    principal: ApiKeyPrincipal,
    input: { language: string; code: string; stdin?: string; timeout_secs?: number; signal?: AbortSignal },
  ): Promise<{ result: { exit_code: number | null; stdout: string; stderr: string; duration_ms: number; timed_out?: boolean; status?: string }; settlement: Settlement }>;
}

/** PUT /v1/state/:key, GET /v1/state/:key, GET /v1/state (sealed key-value state of the account). */
export interface StateService {
  getState(ctx: Context, principal: ApiKeyPrincipal, input: { key: string; namespace?: string }): { key: string; namespace: string; value: unknown; updated_at: string } | null;
  putState(ctx: Context, principal: ApiKeyPrincipal, input: { key: string; value: unknown; namespace?: string }): { key: string; namespace: string; updated_at: string };
  listStateKeys(ctx: Context, principal: ApiKeyPrincipal, input: { namespace?: string }): { keys: string[]; namespace: string };
}

/** POST /v1/memory/collections/:id/search (embeds the query — metered as embedding usage — and ranks chunks). */
export interface MemoryService {
  searchCollection(
    ctx: Context,
    principal: ApiKeyPrincipal,
    input: { collection_id: string; query: string; top_k?: number; signal?: AbortSignal },
  ): Promise<{ results: { document_id: string; chunk: string; score: number }[]; settlement: Settlement | null }>;
}

export interface AreaServices {
  sandboxes: SandboxService | null;
  state: StateService | null;
  memory: MemoryService | null;
}

const SERVICES: AreaServices = { sandboxes: null, state: null, memory: null };

export const areaService = <K extends keyof AreaServices>(area: K): AreaServices[K] => SERVICES[area];

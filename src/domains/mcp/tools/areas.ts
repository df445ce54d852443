/**
 * The services of the areas the sandbox, state and memory tools call, in the shape the tools
 * use, each an adapter over the owning area's front door (the same functions its HTTP routes
 * call: POST /v1/sandboxes, PUT/GET /v1/state/:key, GET /v1/state, POST
 * /v1/memory/collections/:id/search). An area this deployment turns off (memory needs the
 * vector extension, linux-x64 only) is null here, and its tools answer "not available on this
 * deployment" — a tool error, never a fake result.
 */
import type { Settlement } from "../../../core/meter.ts";
import type { Context } from "../../../context.ts";
import type { ApiKeyPrincipal } from "../../keys/index.ts";
import { memoryEnabled, searchCollection } from "../../memory/index.ts";
import { runOneShot } from "../../sandboxes/index.ts";
import { getState, listStateKeys, putState } from "../../state/index.ts";

/** POST /v1/sandboxes (one-shot run): reserves, runs under bubblewrap, settles; its receipt. */
export interface SandboxService {
  runSandbox(
    ctx: Context,
    principal: ApiKeyPrincipal,
    input: { language: string; code: string; stdin?: string; timeout_secs?: number; signal?: AbortSignal; runId?: string | null },
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
    input: { collection_id: string; query: string; top_k?: number; signal?: AbortSignal; runId?: string | null },
  ): Promise<{ results: { document_id: string; chunk: string; score: number }[]; settlement: Settlement | null }>;
}

export interface AreaServices {
  sandboxes: SandboxService | null;
  state: StateService | null;
  memory: MemoryService | null;
}

const sandboxes: SandboxService = {
  async runSandbox(ctx, principal, input) {
    const { view, settlement } = await runOneShot(
      ctx,
      principal,
      { language: input.language, code: input.code, stdin: input.stdin, timeout_ms: input.timeout_secs === undefined ? undefined : input.timeout_secs * 1000, svc_run_id: input.runId ?? undefined },
      input.signal,
    );
    return {
      result: { exit_code: view.exit_code, stdout: view.stdout, stderr: view.stderr, duration_ms: view.duration_ms, timed_out: view.timed_out, status: view.status },
      settlement,
    };
  },
};

const state: StateService = {
  getState(ctx, principal, input) {
    try {
      const { entry } = getState(ctx, principal.accountId, input.key, input.namespace);
      return { key: entry.key, namespace: entry.namespace, value: entry.value, updated_at: entry.updated_at };
    } catch (err) {
      if ((err as { status?: number }).status === 404) return null;
      throw err;
    }
  },
  putState(ctx, principal, input) {
    const { write } = putState(ctx, principal.accountId, input);
    return { key: write.key, namespace: write.namespace, updated_at: write.updated_at };
  },
  listStateKeys(ctx, principal, input) {
    const { keys, namespace } = listStateKeys(ctx, principal.accountId, input.namespace);
    return { keys, namespace };
  },
};

const memory: MemoryService = {
  async searchCollection(ctx, principal, input) {
    const found = await searchCollection(ctx, principal, input.collection_id, { query: input.query, top_k: input.top_k, runId: input.runId }, input.signal);
    return { results: found.results.map((r) => ({ document_id: r.document_id, chunk: r.text, score: r.score })), settlement: found.settlement };
  },
};

export function areaService<K extends keyof AreaServices>(area: K, ctx: Context): AreaServices[K] {
  const services: AreaServices = { sandboxes, state, memory: memoryEnabled() ? memory : null };
  return services[area];
}

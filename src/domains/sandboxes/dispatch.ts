/**
 * Where a run or a new session goes. With sandboxes.local (the default) and a runner that works
 * here, the gateway runs it; otherwise (sandboxes.local = false, or no bubblewrap on this host)
 * a fleet node the nodes area picks: approved, live, not draining, with room, running the
 * language. Nothing to run it on is a 503 no_sandbox_node that says why.
 *
 * A session, and a snapshot, stay on the backend that holds their files: backendOf() finds it
 * again by node id (null: the gateway), and a node that is gone is BackendUnavailable.
 */
import type { Context } from "../../context.ts";
import { BackendUnavailable, type SandboxBackend } from "./backend.ts";
import { noSandboxNode } from "./errors.ts";
import { nodeBackends } from "./node-backends.ts";
import type { LanguageName } from "./runner/index.ts";

export async function backendForNew(ctx: Context, language: LanguageName | null | undefined): Promise<SandboxBackend> {
  const pending = ctx.sandboxes.local();
  let localProblem = "sandboxes.local is false";
  if (pending) {
    const local = await pending.catch((err: unknown) => {
      localProblem = `the gateway's runner did not start (${err instanceof Error ? err.message : String(err)})`;
      return null;
    });
    const posture = local?.runner.posture();
    if (local && posture?.available) return local;
    if (posture) localProblem = `the gateway cannot run sandboxes (${posture.reason})`;
  }
  const fleet = nodeBackends(ctx);
  const picked = fleet?.pick(language ? { language } : {}) ?? null;
  if (picked) return picked;
  const nodes = fleet ? `no approved, live, non-draining node with room runs ${language ?? "commands"}` : "no fleet nodes are configured";
  throw noSandboxNode(`nothing can run this sandbox: ${localProblem}, and ${nodes}`);
}

/** The backend holding a session's workspace or a snapshot's archive. */
export async function backendOf(ctx: Context, nodeId: string | null): Promise<SandboxBackend> {
  if (nodeId === null) {
    const pending = ctx.sandboxes.local();
    if (!pending) throw new BackendUnavailable(null, "sandboxes.local is false");
    return pending;
  }
  const backend = nodeBackends(ctx)?.get(nodeId) ?? null;
  if (!backend) throw new BackendUnavailable(nodeId, "the node is unknown or gone");
  return backend;
}

/**
 * The seam between sandboxes and the fleet: the nodes area (which knows the enrolled nodes and
 * how to reach them) plugs a provider in here from its wire(), and tells this area when a node
 * is lost; this area never imports the nodes area. Per context, like every other hook.
 */
import type { Context } from "../../context.ts";
import type { SandboxBackend } from "./backend.ts";

export interface NodeBackends {
  /** An approved, live, non-draining, non-disabled node with room that runs `language`; null when none. */
  pick(input: { language?: string }): SandboxBackend | null;
  /** The backend of one node (its sessions and snapshots live there); null when it is unknown or gone. */
  get(nodeId: string): SandboxBackend | null;
}

type LostListener = (nodeId: string) => void;

interface Seam {
  provider: NodeBackends | null;
  lost: LostListener[];
}

const seams = new WeakMap<Context, Seam>();
const seamOf = (ctx: Context): Seam => {
  let seam = seams.get(ctx);
  if (!seam) seams.set(ctx, (seam = { provider: null, lost: [] }));
  return seam;
};

/** The nodes area's provider (called once from its wire). */
export function useNodeBackends(ctx: Context, provider: NodeBackends): void {
  seamOf(ctx).provider = provider;
}

/** The fleet as this context sees it; null when no provider is plugged in (no nodes area). */
export const nodeBackends = (ctx: Context): NodeBackends | null => seamOf(ctx).provider;

/** This area listens for lost nodes (its sessions there stop with node_unreachable). */
export function onNodeLost(ctx: Context, listener: LostListener): void {
  seamOf(ctx).lost.push(listener);
}

/** The nodes area reports a node that missed its heartbeats. */
export function reportNodeLost(ctx: Context, nodeId: string): void {
  for (const listener of seamOf(ctx).lost) listener(nodeId);
}

/**
 * Code sandboxes: metered one-shot runs and persistent sessions under bubblewrap, on the
 * gateway or on enrolled fleet nodes (/v1/sandboxes/*).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { BackendUnavailable, type CreateWorkspaceInput, type SandboxBackend, type WorkspaceRef } from "./backend.ts";
export type { DirEntry, Posture, RunIO, RunResult, RunSpec } from "./runner/index.ts";
export { type NodeBackends, nodeBackends, onNodeLost, reportNodeLost, useNodeBackends } from "./node-backends.ts";
export { createRunner, type Runner } from "./runner/index.ts";

/**
 * Code sandboxes: metered one-shot runs and persistent sessions under bubblewrap, on the
 * gateway or on enrolled fleet nodes (/v1/sandboxes/*, /v1/usage/sandboxes, /v1/terminal/run).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
import type { Context } from "../../context.ts";
import type { SandboxPosture } from "./runtime.ts";

export { BackendUnavailable, type CreateWorkspaceInput, type SandboxBackend, type WorkspaceRef } from "./backend.ts";
export type { DirEntry, Posture, RunIO, RunResult, RunSpec } from "./runner/index.ts";
export { type NodeBackends, nodeBackends, onNodeLost, reportNodeLost, useNodeBackends } from "./node-backends.ts";
export { createRunner, type Runner } from "./runner/index.ts";
/** The backend a fleet node serves its sandboxes from (the same as the gateway's). */
export { createLocalBackend, type LocalBackend, type LocalBackendOptions } from "./local-backend.ts";
export { SandboxPostureSchema } from "./posture.ts";
export type { SandboxPosture } from "./runtime.ts";

/** GET /v1/status's sandbox posture block: sandboxes.local, the gateway runner's posture (null until it has started), whether a fleet is plugged in. */
export const sandboxPosture = (ctx: Context): SandboxPosture => ctx.sandboxes.posture();

/** Stops the gateway's runner (its warm launchers) in a context that started one; `svc serve` does this itself. */
export const closeSandboxes = (ctx: Context): Promise<void> => ctx.sandboxes.close();
export { type OneShotServiceInput, runOneShot } from "./oneshot.ts";
export type { Executed, RunView } from "./execution.ts";
export { sandboxReadiness } from "./readiness.ts";

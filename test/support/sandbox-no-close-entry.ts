/**
 * A process that creates a runner, runs once, prints its pid and ends without close(), as a
 * CLI command might. Used by runner-launchers.test.ts: idle warm launchers must not keep it
 * alive, and the groups they leave must be swept by the next runner.
 * Usage: bun sandbox-no-close-entry.ts WORKSPACE_ROOT STAGING_DIR
 */
import { createRunner } from "../../src/domains/sandboxes/runner/index.ts";

const [workspaceRoot, stagingDir] = process.argv.slice(2);
if (!workspaceRoot || !stagingDir) throw new Error("usage: entry WORKSPACE_ROOT STAGING_DIR");
const runner = await createRunner({ workspaceRoot, stagingDir });
const r = await runner.run({ language: "bash", code: "echo ran" });
console.log(JSON.stringify({ pid: process.pid, status: r.status, cgroups: runner.posture().cgroups.version }));

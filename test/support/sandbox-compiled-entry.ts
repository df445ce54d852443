/**
 * Entry point of a tiny `bun build --compile` executable for runner-compiled.test.ts: it
 * stands in for the compiled gateway, creates a runner and runs JavaScript through it, so the
 * test sees which Bun runtime a compiled binary puts into its sandboxes.
 * Usage: <binary> WORKSPACE_ROOT STAGING_DIR
 */
import { createRunner } from "../../src/domains/sandboxes/runner/index.ts";

const [workspaceRoot, stagingDir] = process.argv.slice(2);
if (!workspaceRoot || !stagingDir) throw new Error("usage: entry WORKSPACE_ROOT STAGING_DIR");
const runner = await createRunner({ workspaceRoot, stagingDir });
const result = await runner.run({ language: "javascript", code: "console.log(JSON.stringify({ execPath: process.execPath, version: Bun.version, size: require('node:fs').statSync(process.execPath).size }))" });
console.log(JSON.stringify({ posture: runner.posture(), result }));
await runner.close();

/**
 * `svc doctor`'s sandbox check: starts a throwaway runner exactly as the gateway would (it
 * probes bubblewrap, cgroups, rlimits and the languages, and runs one self-test sandbox), reads
 * its posture and removes it. Nothing of the gateway's own sandboxes is touched.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunner, type Posture } from "./runner/index.ts";

export async function sandboxReadiness(): Promise<Posture> {
  const dir = mkdtempSync(join(tmpdir(), "svc-doctor-sandbox-"));
  // The sandbox uid must pass through to reach the workspace root, as under sandboxes.dir.
  chmodSync(dir, 0o711);
  try {
    const runner = await createRunner({ workspaceRoot: join(dir, "workspaces"), stagingDir: join(dir, "staging"), warmLaunchers: 0 });
    try {
      return runner.posture();
    } finally {
      await runner.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

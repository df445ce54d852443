/**
 * Hands a run's content to bwrap: its options, the program file, one-shot input files, stdin,
 * and the empty "started" marker. Each is a file in the runner's private directory (0700, the
 * gateway's user only), opened by the launch as a numbered descriptor: by the gateway itself
 * (a cold start) or by a warm launcher's redirections (launchers.ts). bwrap, which may already
 * run as the sandbox uid, never needs a path it could not reach; it reads and closes each
 * descriptor during setup, so the program never inherits them. The files go when the run ends.
 */
import { chmodSync, mkdirSync } from "node:fs";
import { open, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

export class Staging {
  private readonly dir: string;
  private readonly handles: FileHandle[] = [];
  private readonly paths: string[] = [];

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Makes the private directory (once per runner). */
  static prepare(dir: string): void {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }

  /** Writes `content` to a new private file; returns its path. */
  async file(content: string | Uint8Array): Promise<string> {
    const path = join(this.dir, randomBytes(12).toString("hex"));
    this.paths.push(path);
    await writeFile(path, content, { mode: 0o600, flag: "wx" });
    return path;
  }

  /** Opens a staged file (read-only, or write-only for the marker); the handle closes with closeHandles. */
  async open(path: string, write = false): Promise<number> {
    const handle = await open(path, write ? "w" : "r");
    this.handles.push(handle);
    return handle.fd;
  }

  /** Our copies of the descriptors; the child has its own once spawned. */
  async closeHandles(): Promise<void> {
    await Promise.all(this.handles.splice(0).map((h) => h.close().catch(() => {})));
  }

  async closeAll(): Promise<void> {
    await this.closeHandles();
    await Promise.all(this.paths.splice(0).map((p) => unlink(p).catch(() => {})));
  }
}

/**
 * Hands content to bwrap as open file descriptors: written to a file in the runner's private
 * directory (0700, the gateway's user only), opened, and unlinked at once, so nothing of a
 * program, its input or its arguments lies around by name, and bwrap, which may already run
 * as the sandbox uid, never needs a path it could not reach. bwrap reads and closes each one
 * during setup; the program never inherits them.
 */
import { mkdirSync, chmodSync } from "node:fs";
import { open, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

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

  private name(): string {
    return join(this.dir, randomBytes(12).toString("hex"));
  }

  /** A read-only descriptor positioned at the start of `content`. */
  async read(content: string | Uint8Array): Promise<number> {
    const path = this.name();
    await writeFile(path, content, { mode: 0o600, flag: "wx" });
    try {
      const handle = await open(path, "r");
      this.handles.push(handle);
      return handle.fd;
    } finally {
      await unlink(path).catch(() => {});
    }
  }

  /**
   * A write-only descriptor to an empty file whose content is read back after the run (the
   * "sandbox started" marker). The file stays until `closeAll`.
   */
  async writable(): Promise<{ fd: number; path: string }> {
    const path = this.name();
    const handle = await open(path, "wx", 0o600);
    this.handles.push(handle);
    this.paths.push(path);
    return { fd: handle.fd, path };
  }

  /** Our copies; the child keeps its own until bwrap has consumed them. */
  async closeHandles(): Promise<void> {
    await Promise.all(this.handles.splice(0).map((h) => h.close().catch(() => {})));
  }

  async closeAll(): Promise<void> {
    await this.closeHandles();
    await Promise.all(this.paths.splice(0).map((p) => unlink(p).catch(() => {})));
  }
}

/**
 * The files API of a session workspace: read a file, write a file, list a directory. Every
 * path goes through workspace-paths.ts, so nothing outside the workspace can be reached, and
 * a symlink (which only the sandboxed program can have made) is reported, never followed.
 */
import { constants } from "node:fs";
import { lstat, open, readdir, rename, statfs, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { FileTooLargeError, WorkspacePathError, WorkspaceQuotaError } from "./errors.ts";
import { beneath, openDirBeneath, openFileBeneath, parseWorkspacePath, type Owner } from "./workspace-paths.ts";
import { measureUsage } from "./workspaces.ts";

/** Spec §8: a file write to a sandbox workspace is at most 8 MiB. */
export const MAX_FILE_WRITE_BYTES = 8 * 1024 * 1024;
/** Reads are bounded too: the gateway holds the whole file in memory to answer. */
export const MAX_FILE_READ_BYTES = 64 * 1024 * 1024;
const MAX_LIST_ENTRIES = 10_000;

export type EntryType = "file" | "directory" | "symlink" | "other";

export interface DirEntry {
  name: string;
  type: EntryType;
  /** Bytes for a file; 0 for the rest. */
  size: number;
}

export interface WriteOptions {
  /** Who owns created files and directories (the sandbox uid, when the gateway is root). */
  owner?: Owner | null;
  /**
   * The workspace quota, checked before writing when the workspace is a plain directory. A
   * tmpfs workspace needs no check: the kernel answers ENOSPC.
   */
  quotaBytes?: number | null;
  maxBytes?: number;
}

export async function readWorkspaceFile(root: string, path: string, maxBytes = MAX_FILE_READ_BYTES): Promise<Uint8Array> {
  const names = parseWorkspacePath(path);
  const file = await openFileBeneath(root, names, path);
  try {
    const st = await file.stat();
    if (st.size > maxBytes) throw new FileTooLargeError(maxBytes, st.size);
    // Read through the handle: the name may have been swapped since it was opened.
    const buf = new Uint8Array(st.size);
    let at = 0;
    while (at < buf.byteLength) {
      const { bytesRead } = await file.read(buf, at, buf.byteLength - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === buf.byteLength ? buf : buf.subarray(0, at);
  } finally {
    await file.close();
  }
}

/**
 * Writes `data` at `path`, creating missing directories. The bytes go to a new temporary
 * name in the same directory (O_EXCL|O_NOFOLLOW) and are renamed over the target, so a
 * reader never sees half a file and a symlink planted at the target is not written through.
 */
export async function writeWorkspaceFile(root: string, path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
  const maxBytes = options.maxBytes ?? MAX_FILE_WRITE_BYTES;
  if (data.byteLength > maxBytes) throw new FileTooLargeError(maxBytes, data.byteLength);
  const names = parseWorkspacePath(path);
  const leaf = names.at(-1);
  if (leaf === undefined) throw new WorkspacePathError("not_a_file", path, "is the workspace itself");
  if (options.quotaBytes != null) {
    const usage = await measureUsage(root);
    if (usage.bytes + data.byteLength > options.quotaBytes) throw new WorkspaceQuotaError(options.quotaBytes);
  }
  const owner = options.owner ?? null;
  const dir = await openDirBeneath(root, names.slice(0, -1), path, { owner });
  const tmp = `.svc-write-${randomBytes(8).toString("hex")}`;
  try {
    const existing = await lstat(beneath(dir, leaf)).catch(() => null);
    if (existing?.isSymbolicLink()) throw new WorkspacePathError("symlink", path, `"${leaf}" is a symlink; the files API does not follow or replace symlinks`);
    if (existing?.isDirectory()) throw new WorkspacePathError("not_a_file", path, "is a directory");
    const file = await open(beneath(dir, tmp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await file.writeFile(data);
      if (owner) await file.chown(owner.uid, owner.gid);
    } finally {
      await file.close();
    }
    await rename(beneath(dir, tmp), beneath(dir, leaf));
  } catch (err) {
    await unlink(beneath(dir, tmp)).catch(() => {});
    if ((err as NodeJS.ErrnoException).code === "ENOSPC" || (err as NodeJS.ErrnoException).code === "EDQUOT") {
      throw new WorkspaceQuotaError(options.quotaBytes ?? (await filesystemBytes(root)));
    }
    throw err;
  } finally {
    await dir.close();
  }
}

export async function listWorkspaceDir(root: string, path = ""): Promise<DirEntry[]> {
  const names = parseWorkspacePath(path);
  const dir = await openDirBeneath(root, names, path);
  try {
    const entries = await readdir(beneath(dir, "."));
    const out: DirEntry[] = [];
    for (const name of entries.sort().slice(0, MAX_LIST_ENTRIES)) {
      const st = await lstat(beneath(dir, name)).catch(() => null);
      if (!st) continue; // removed while listing
      const type: EntryType = st.isFile() ? "file" : st.isDirectory() ? "directory" : st.isSymbolicLink() ? "symlink" : "other";
      out.push({ name, type, size: type === "file" ? st.size : 0 });
    }
    return out;
  } finally {
    await dir.close();
  }
}

/** The size of the file system holding `root` (a tmpfs workspace's quota). */
async function filesystemBytes(root: string): Promise<number> {
  const fs = await statfs(root).catch(() => null);
  return fs ? fs.blocks * fs.bsize : 0;
}

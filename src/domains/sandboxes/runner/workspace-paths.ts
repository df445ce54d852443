/**
 * Opening paths inside a workspace without ever leaving it. The gateway touches a workspace
 * the sandboxed program shares, and that program can turn any name into a symlink at any
 * moment (to /etc/shadow, to /, to the gateway's data dir). So a path is never resolved in one
 * go: each component is opened with O_NOFOLLOW relative to the descriptor of its parent, via
 * /proc/self/fd/N/name, which is openat(2) for a runtime that has no openat. A symlink
 * anywhere on the way is refused, not followed, and a rename race cannot redirect a later
 * step because every step starts from a directory already held open.
 */
import { constants } from "node:fs";
import { chown, lstat, mkdir, open, type FileHandle } from "node:fs/promises";
import { WorkspacePathError } from "./errors.ts";

const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;

export const O_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A file's owner inside the workspace: the sandbox uid, so programs can change what the API wrote. */
export interface Owner {
  uid: number;
  gid: number;
}

/**
 * Splits a workspace-relative path into names. Refuses NUL, absolute paths and "..";
 * drops "." and empty names (so "a//b/./c" is "a/b/c"). "" and "." mean the root.
 */
export function parseWorkspacePath(path: unknown): string[] {
  if (typeof path !== "string") throw new WorkspacePathError("invalid_path", String(path), "must be a string");
  if (path.includes("\0")) throw new WorkspacePathError("invalid_path", path.replaceAll("\0", "\\0"), "must not contain NUL");
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw new WorkspacePathError("invalid_path", path.slice(0, 64), "is too long");
  if (path.startsWith("/")) throw new WorkspacePathError("invalid_path", path, "must be relative to the workspace");
  const names: string[] = [];
  for (const name of path.split("/")) {
    if (name === "" || name === ".") continue;
    if (name === "..") throw new WorkspacePathError("invalid_path", path, `must not contain ".."`);
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new WorkspacePathError("invalid_path", path, "has a name that is too long");
    names.push(name);
  }
  return names;
}

/** The path of `name` inside the directory held open as `dir`. */
export const beneath = (dir: FileHandle, name: string): string => `/proc/self/fd/${dir.fd}/${name}`;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** Turns an open(2) failure on one component into the files API's refusal. */
async function refusal(err: unknown, dir: FileHandle, name: string, path: string, wantDir: boolean): Promise<WorkspacePathError> {
  const code = errno(err);
  if (code === "ENOENT") return new WorkspacePathError("not_found", path);
  if (code === "ELOOP" || code === "ENOTDIR" || code === "EISDIR") {
    const st = await lstat(beneath(dir, name)).catch(() => null);
    if (st?.isSymbolicLink()) return new WorkspacePathError("symlink", path, `"${name}" is a symlink; the files API does not follow symlinks`);
    if (code === "EISDIR" || st?.isDirectory()) return new WorkspacePathError("not_a_file", path, `"${name}" is a directory`);
    return new WorkspacePathError(wantDir ? "not_a_directory" : "not_a_file", path);
  }
  throw err;
}

/** Opens the workspace root itself (the caller's own path, trusted; only its last name must not be a symlink). */
export async function openRoot(root: string): Promise<FileHandle> {
  try {
    return await open(root, O_DIR);
  } catch (err) {
    if (errno(err) === "ENOENT") throw new WorkspacePathError("not_found", ".", "the workspace does not exist");
    if (errno(err) === "ELOOP") throw new WorkspacePathError("symlink", ".", "the workspace is a symlink");
    throw err;
  }
}

/**
 * Opens the directory at `names` under `root`, one component at a time. With `create`, missing
 * directories are made (owned by `create.owner` when given). The caller closes the handle.
 */
export async function openDirBeneath(
  root: string,
  names: string[],
  path: string,
  create: { owner: Owner | null } | null = null,
): Promise<FileHandle> {
  let dir = await openRoot(root);
  try {
    for (const name of names) {
      let next: FileHandle;
      try {
        next = await open(beneath(dir, name), O_DIR);
      } catch (err) {
        if (errno(err) !== "ENOENT" || !create) throw await refusal(err, dir, name, path, true);
        try {
          await mkdir(beneath(dir, name), { mode: 0o755 });
        } catch (mkErr) {
          if (errno(mkErr) !== "EEXIST") throw mkErr;
        }
        try {
          next = await open(beneath(dir, name), O_DIR);
        } catch (again) {
          throw await refusal(again, dir, name, path, true);
        }
        if (create.owner) await chown(beneath(dir, name), create.owner.uid, create.owner.gid).catch(() => {});
      }
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (err) {
    await dir.close().catch(() => {});
    throw err;
  }
}

/** Opens the file `names` under `root` for reading, refusing symlinks and non-regular files. */
export async function openFileBeneath(root: string, names: string[], path: string): Promise<FileHandle> {
  const leaf = names.at(-1);
  if (leaf === undefined) throw new WorkspacePathError("not_a_file", path, "is the workspace itself");
  const dir = await openDirBeneath(root, names.slice(0, -1), path);
  try {
    let file: FileHandle;
    try {
      // O_NONBLOCK: opening a FIFO the program left here must not hang the gateway.
      file = await open(beneath(dir, leaf), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      throw await refusal(err, dir, leaf, path, false);
    }
    const st = await file.stat();
    if (!st.isFile()) {
      await file.close();
      throw new WorkspacePathError("not_a_file", path, st.isDirectory() ? "is a directory" : "is not a regular file");
    }
    return file;
  } finally {
    await dir.close();
  }
}

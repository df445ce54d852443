/**
 * The bubblewrap options of one run: namespaces, the file system the program sees, its
 * environment. They go to bwrap through `--args FD` (a NUL-separated file), not on its command
 * line, so the caller's environment values never show up in the host's `ps` and no size limit
 * of a single argv string applies. docs/sandboxes-isolation.md explains each choice.
 */
import { globSync, lstatSync, readlinkSync } from "node:fs";

/**
 * A file bwrap copies from an open descriptor into the sandbox (--file). Outside /workspace
 * and /tmp it lands on bwrap's root tmpfs, which is remounted read-only before the program
 * starts, so /etc/passwd or the program file cannot be changed. (Not --ro-bind-data: that
 * mounts an already-deleted file, and Bun then resolves its entry point to "main.js (deleted)".)
 */
export interface FdFile {
  fd: number;
  dest: string;
  mode: string;
}

export type WorkspaceMount =
  /** A session's directory on the host, bound read-write. */
  | { kind: "bind"; hostDir: string }
  /** A one-shot run's private tmpfs of a fixed size, filled from descriptors. */
  | { kind: "tmpfs"; sizeBytes: number; dirs: string[]; files: FdFile[] };

export interface SandboxLayout {
  uid: number;
  gid: number;
  tmpBytes: number;
  workspace: WorkspaceMount;
  /** /etc/passwd, /etc/group, ... and the program file. */
  dataFiles: FdFile[];
  /** Extra read-only binds (the JavaScript runtime). */
  roBinds: { host: string; sandbox: string }[];
  env: Record<string, string>;
}

export const SANDBOX_HOSTNAME = "sandbox";
export const WORKSPACE = "/workspace";

/**
 * The root-level names that point into /usr on a merged-/usr system (symlinks, recreated as
 * symlinks) or are real directories on an older one (bound read-only as they are).
 */
function rootLinks(): string[] {
  const out: string[] = [];
  for (const name of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const path = `/${name}`;
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.push("--symlink", readlinkSync(path), path);
      else if (st.isDirectory()) out.push("--ro-bind", path, path);
    } catch {
      // absent on this host
    }
  }
  return out;
}

/**
 * The pieces of the host's /etc that the runtimes read. Not passwd, group or shadow (generated
 * instead), not hosts or resolv.conf (there is no network), nothing with secrets.
 */
function etcPieces(): string[] {
  const wanted = [
    "/etc/alternatives", // Debian's /usr/bin/* -> /etc/alternatives/* -> real binary links
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/mime.types",
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    ...globSync("/etc/python3*"), // Debian's sitecustomize.py lives here
  ];
  const out: string[] = [];
  for (const path of wanted) out.push("--ro-bind-try", path, path);
  return out;
}

/** The host-dependent part, the same for every run: computed once. */
export function systemMounts(): string[] {
  return ["--ro-bind", "/usr", "/usr", ...rootLinks(), ...etcPieces()];
}

function fdFile(f: FdFile): string[] {
  return ["--perms", f.mode, "--file", String(f.fd), f.dest];
}

export function bwrapOptions(layout: SandboxLayout, system: string[]): string[] {
  const a: string[] = [
    // Every namespace: user, pid, ipc, net, uts, cgroup. No network at all: the new net
    // namespace has only a loopback of its own.
    "--unshare-all",
    // Named explicitly: --unshare-all only *tries* a user namespace, and the uid mapping and
    // --disable-userns below need one.
    "--unshare-user",
    // No nested user namespaces: they are the usual first step of a kernel exploit.
    "--disable-userns",
    "--uid", String(layout.uid),
    "--gid", String(layout.gid),
    "--hostname", SANDBOX_HOSTNAME,
    // If the gateway dies, so does the sandbox (no orphans running on without limits).
    "--die-with-parent",
    // setsid(): the program cannot push input into a terminal it does not own (TIOCSTI).
    "--new-session",
    "--cap-drop", "ALL",
    ...system,
  ];
  for (const f of layout.dataFiles) a.push(...fdFile(f));
  for (const b of layout.roBinds) a.push("--ro-bind", b.host, b.sandbox);
  a.push(
    "--proc", "/proc",
    "--dev", "/dev",
    "--size", String(layout.tmpBytes), "--tmpfs", "/dev/shm",
    // /dev itself is a tmpfs without a size; nothing may be written there.
    "--remount-ro", "/dev",
    "--size", String(layout.tmpBytes), "--tmpfs", "/tmp",
  );
  const ws = layout.workspace;
  if (ws.kind === "bind") {
    a.push("--bind", ws.hostDir, WORKSPACE);
  } else {
    a.push("--size", String(ws.sizeBytes), "--tmpfs", WORKSPACE);
    for (const dir of ws.dirs) a.push("--dir", dir);
    for (const f of ws.files) a.push(...fdFile(f));
  }
  a.push(
    "--chdir", WORKSPACE,
    // The root is bwrap's own tmpfs: read-only, so nothing can be stored outside the capped
    // mounts above.
    "--remount-ro", "/",
    "--clearenv",
  );
  for (const [name, value] of Object.entries(layout.env)) a.push("--setenv", name, value);
  return a;
}

/** Minimal account files: the sandbox's own user and root, none of the host's accounts. */
export function accountFiles(uid: number, gid: number): { passwd: string; group: string } {
  const passwd = `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${uid}:${gid}:sandbox:/tmp:/bin/sh\n`;
  const group = `root:x:0:\nsandbox:x:${gid}:\n`;
  return { passwd, group };
}

export const HOSTS_FILE = `127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t${SANDBOX_HOSTNAME}\n`;
/** Only files: no NSS module (systemd, ldap, ...) gets loaded or asked for anything. */
export const NSSWITCH_FILE = "passwd: files\ngroup: files\nshadow: files\nhosts: files\n";

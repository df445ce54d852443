/**
 * The languages a sandbox runs, found once at start. Only interpreters the sandbox can see are
 * candidates: the sandbox mounts /usr (and the /bin, /lib links into it), so a python3 that
 * lives under a user's home (pyenv shims and the like) is not one, whatever PATH says.
 *
 * JavaScript runs on Bun. The gateway ships as a `bun build --compile` executable, and such an
 * executable acts as the plain Bun CLI when started with BUN_BE_BUN=1, so the gateway binary
 * itself is mounted read-only at /opt/svc/bin/bun: no second runtime to install or to keep in
 * step. Under `bun cli/main.ts` the running bun is used the same way; a bun on PATH is the
 * last resort.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { isCompiledBinary } from "../../../core/compiled.ts";

export type LanguageName = "python" | "javascript" | "bash";
export const LANGUAGE_NAMES: readonly LanguageName[] = ["python", "javascript", "bash"];

/** Where a run's program file is mounted (read-only, outside the workspace). */
export const PROGRAM_DIR = "/run/svc";
/** Where the JavaScript runtime binary is mounted. */
export const SANDBOX_BUN = "/opt/svc/bin/bun";

export interface Language {
  name: LanguageName;
  available: boolean;
  version: string | null;
  /** The interpreter's path on the host. */
  hostPath: string | null;
  /** How the runtime was found (for the posture: "system", "self (BUN_BE_BUN)", "bun on PATH"). */
  source: string | null;
  reason: string | null;
  /** Program file name inside PROGRAM_DIR. */
  file: string;
  /**
   * Address space the runtime reserves beyond what it uses: RLIMIT_AS is the memory fallback
   * without a memory cgroup, and Bun's JavaScriptCore maps several hundred MiB at start
   * (measured: it aborts under 256 MiB, starts under 400 MiB).
   */
  addressSpaceOverheadBytes: number;
  /** Path of the interpreter inside the sandbox. */
  sandboxPath: string | null;
  /** A host file to mount read-only at sandboxPath (when it is not already visible via /usr). */
  bind: { host: string; sandbox: string } | null;
  env: Record<string, string>;
}

const MiB = 1024 * 1024;

/** argv of a program run from its file. */
export function programArgv(lang: Language, args: string[]): string[] {
  const main = `${PROGRAM_DIR}/${lang.file}`;
  switch (lang.name) {
    // -u: unbuffered, so streamed output arrives as it is printed and interleaves with stderr;
    // -B: no __pycache__ written into the workspace (it would count against its quota).
    case "python":
      return [lang.sandboxPath!, "-u", "-B", main, ...args];
    // --no-install: no auto-install of missing packages (there is no network anyway; this
    // turns a slow resolver failure into an immediate "cannot find package").
    case "javascript":
      return [lang.sandboxPath!, "--no-install", main, ...args];
    case "bash":
      return [lang.sandboxPath!, main, ...args];
  }
}

async function versionOf(cmd: string[], env: Record<string, string>, pattern: RegExp): Promise<string | null> {
  try {
    const proc = Bun.spawn(cmd, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return (out + err).match(pattern)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * True when `uid`/`gid` may traverse every directory above `path` and read it: bwrap resolves
 * its bind sources as the sandbox user, so a binary under a 0700 directory cannot be mounted.
 */
export function reachableBy(path: string, uid: number, gid: number): boolean {
  if (uid === process.getuid?.()) return true;
  try {
    const allowed = (p: string, bit: number) => {
      const st = statSync(p);
      const mode = st.mode;
      if (st.uid === uid) return (mode & (bit << 6)) !== 0;
      if (st.gid === gid) return (mode & (bit << 3)) !== 0;
      return (mode & bit) !== 0;
    };
    let dir = dirname(path);
    for (;;) {
      if (!allowed(dir, 1)) return false;
      if (dir === "/") break;
      dir = dirname(dir);
    }
    return allowed(path, 4);
  } catch {
    return false;
  }
}

function firstExisting(paths: string[]): string | null {
  for (const p of paths) if (existsSync(p)) return p;
  return null;
}

async function detectPython(): Promise<Language> {
  const host = firstExisting(["/usr/local/bin/python3", "/usr/bin/python3"]);
  const version = host ? await versionOf([host, "--version"], {}, /Python (\S+)/) : null;
  return {
    name: "python",
    available: version !== null,
    version,
    hostPath: host,
    source: host ? "system" : null,
    reason: version ? null : "no python3 under /usr",
    file: "main.py",
    addressSpaceOverheadBytes: 64 * MiB,
    sandboxPath: host,
    bind: null,
    env: {},
  };
}

async function detectBash(): Promise<Language> {
  const host = firstExisting(["/usr/bin/bash", "/bin/bash"]);
  const version = host ? await versionOf([host, "--version"], {}, /version (\d+\.\d+(?:\.\d+)?)/) : null;
  return {
    name: "bash",
    available: version !== null,
    version,
    hostPath: host,
    source: host ? "system" : null,
    reason: version ? null : "no bash under /usr",
    file: "main.sh",
    addressSpaceOverheadBytes: 32 * MiB,
    sandboxPath: host,
    bind: null,
    env: {},
  };
}

export interface BunCandidate {
  path: string;
  /** The gateway binary itself, which needs BUN_BE_BUN=1 to act as the Bun CLI. */
  self: boolean;
  source: string;
}

export function bunCandidates(explicit: string | undefined): BunCandidate[] {
  const out: BunCandidate[] = [];
  if (explicit) out.push({ path: explicit, self: false, source: "configured" });
  if (isCompiledBinary()) out.push({ path: process.execPath, self: true, source: "self (BUN_BE_BUN)" });
  else if (basename(process.execPath).startsWith("bun")) out.push({ path: process.execPath, self: false, source: "running bun" });
  const onPath = Bun.which("bun");
  if (onPath) out.push({ path: onPath, self: false, source: "bun on PATH" });
  return out;
}

async function detectJavaScript(explicit: string | undefined, uid: number, gid: number): Promise<Language> {
  const base = {
    name: "javascript" as const,
    file: "main.js",
    addressSpaceOverheadBytes: 512 * MiB,
  };
  const problems: string[] = [];
  for (const c of bunCandidates(explicit)) {
    let real: string;
    try {
      real = realpathSync(c.path);
    } catch {
      problems.push(`${c.path}: missing`);
      continue;
    }
    if (!reachableBy(real, uid, gid)) {
      problems.push(`${real}: not readable by the sandbox uid ${uid}`);
      continue;
    }
    // BUN_BE_BUN is harmless for a plain bun, so it is always set: one code path.
    const env = { BUN_BE_BUN: "1" };
    const version = await versionOf([real, "--version"], env, /^(\d+\.\d+\.\d+\S*)/m);
    if (!version) {
      problems.push(`${real}: --version failed`);
      continue;
    }
    return {
      ...base,
      available: true,
      version,
      hostPath: real,
      source: c.source,
      reason: null,
      sandboxPath: SANDBOX_BUN,
      // Mounted at a fixed path even when /usr already shows it, so PATH and the argv are the
      // same whichever candidate won.
      bind: { host: real, sandbox: SANDBOX_BUN },
      // The transpiler cache would be written under HOME (/tmp) on every run and never reused.
      env: { ...env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
    };
  }
  return {
    ...base,
    available: false,
    version: null,
    hostPath: null,
    source: null,
    reason: problems.join("; ") || "no Bun runtime found",
    sandboxPath: null,
    bind: null,
    env: {},
  };
}

export async function detectLanguages(options: { bunPath?: string; uid: number; gid: number }): Promise<Map<LanguageName, Language>> {
  const [python, javascript, bash] = await Promise.all([detectPython(), detectJavaScript(options.bunPath, options.uid, options.gid), detectBash()]);
  return new Map<LanguageName, Language>([
    ["python", python],
    ["javascript", javascript],
    ["bash", bash],
  ]);
}

/**
 * Turns what a caller asks for into what execute() runs: checks a RunSpec field by field
 * (every refusal names the field), resolves its limits, picks the program, and prepares the
 * workspace: a one-shot tmpfs filled from `files`, or a session's directory, which must lie
 * under the runner's workspace root (so no caller mistake can bind, or chown, anything else).
 */
import { chown, lstat } from "node:fs/promises";
import { BASE_ENV, validateEnv } from "./env.ts";
import { InvalidRunSpecError, SandboxUnavailableError } from "./errors.ts";
import type { Host, SandboxRequest } from "./execute.ts";
import { LANGUAGE_NAMES, programArgv, reachableBy, type Language, type LanguageName } from "./languages.ts";
import { resolveLimits, type Limits } from "./limits.ts";
import { WORKSPACE } from "./sandbox-args.ts";
import type { RunIO, RunSpec } from "./types.ts";
import { writeWorkspaceFile } from "./workspace-files.ts";
import { parseWorkspacePath, type Owner } from "./workspace-paths.ts";
import { isMountPoint, workspaceUnder } from "./workspaces.ts";

const MAX_CODE_BYTES = 4 * 1024 * 1024;
const MAX_STDIN_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 256;
const MAX_ARGS = 1024;

/** What planning needs from the runner, fixed at createRunner. */
export interface RunContext {
  host: Host;
  defaults: Limits;
  max: Limits;
  languages: Map<LanguageName, Language>;
  workspaceRoot: string;
  /** Owner of what the runner writes into workspaces (the sandbox uid, when the gateway is root). */
  owner: Owner | null;
  /** The largest runtime address-space reservation, for commands of unknown language. */
  maxOverhead: number;
}

export type BoundWorkspace = { kind: "bind"; dir: string; watchQuotaBytes: number | null };

export function baseRequest(ctx: RunContext, limits: Limits, overhead: number): Omit<SandboxRequest, "program" | "programFile" | "workspace" | "io"> {
  return {
    limits,
    addressSpaceBytes: limits.memoryBytes + overhead,
    env: { ...BASE_ENV, ...ctx.host.runtimeEnv },
    stdin: null,
    stdinFd: null,
    stdoutFd: null,
  };
}

/** A session workspace as a run binds it: owned by the sandbox uid, its quota kept by its mount or by the watch. */
export async function bindWorkspace(ctx: RunContext, dir: unknown, limits: Limits): Promise<BoundWorkspace> {
  if (typeof dir !== "string") throw new InvalidRunSpecError("workspaceDir", "must be a path");
  const abs = await workspaceUnder(ctx.workspaceRoot, dir);
  if (!abs) throw new InvalidRunSpecError("workspaceDir", "must be a directory under the runner's workspace root");
  const st = await lstat(abs).catch(() => null);
  if (!st || !st.isDirectory()) throw new InvalidRunSpecError("workspaceDir", "must be an existing directory (not a symlink)");
  const { uid, gid, rootMode } = ctx.host;
  if (rootMode) {
    if (st.uid !== uid) await chown(abs, uid, gid);
    if (!reachableBy(abs, uid, gid)) throw new SandboxUnavailableError(`workspace ${abs} is not reachable by the sandbox uid ${uid}`);
  }
  // A workspace that is its own mount (createWorkspace's tmpfs) is held to size by the kernel.
  return { kind: "bind", dir: abs, watchQuotaBytes: (await isMountPoint(abs)) ? null : limits.workspaceBytes };
}

interface PlannedFile {
  path: string[];
  raw: string;
  content: string;
}

function checkFiles(files: unknown, limits: Limits): PlannedFile[] {
  if (files === undefined) return [];
  if (typeof files !== "object" || files === null || Array.isArray(files)) throw new InvalidRunSpecError("files", "must be an object of path -> content");
  const entries = Object.entries(files);
  if (entries.length > MAX_FILES) throw new InvalidRunSpecError("files", `at most ${MAX_FILES} files`);
  const out: PlannedFile[] = [];
  let total = 0;
  for (const [raw, content] of entries) {
    let path: string[];
    try {
      path = parseWorkspacePath(raw);
    } catch (err) {
      throw new InvalidRunSpecError(`files.${raw}`, (err as Error).message);
    }
    if (path.length === 0) throw new InvalidRunSpecError(`files.${raw}`, "must name a file");
    if (typeof content !== "string") throw new InvalidRunSpecError(`files.${raw}`, "must be a UTF-8 string");
    const bytes = Buffer.byteLength(content);
    if (bytes > limits.fileSizeBytes) throw new InvalidRunSpecError(`files.${raw}`, `exceeds limits.fileSizeBytes (${limits.fileSizeBytes})`);
    total += bytes;
    out.push({ path, raw, content });
  }
  if (total > limits.workspaceBytes) throw new InvalidRunSpecError("files", `exceed limits.workspaceBytes (${limits.workspaceBytes}) in all`);
  const joined = new Set(out.map((f) => f.path.join("/")));
  for (const f of out) {
    for (let i = 1; i < f.path.length; i++) {
      if (joined.has(f.path.slice(0, i).join("/"))) throw new InvalidRunSpecError(`files.${f.raw}`, "a parent of this path is also a file");
    }
  }
  return out;
}

export interface CheckedSpec {
  limits: Limits;
  language: Language | null;
  program: string[];
  programFile: SandboxRequest["programFile"];
  env: Record<string, string>;
  files: PlannedFile[];
}

/** Every check that needs no file system: a bad spec is refused even when sandboxes are unavailable. */
export function checkSpec(ctx: RunContext, spec: RunSpec): CheckedSpec {
  if (typeof spec !== "object" || spec === null) throw new InvalidRunSpecError("spec", "must be an object");
  const limits = resolveLimits(ctx.defaults, ctx.max, spec.timeoutMs === undefined ? spec.limits : { ...spec.limits, timeoutMs: spec.timeoutMs });
  let language: Language | null = null;
  if (spec.language !== undefined) {
    if (!LANGUAGE_NAMES.includes(spec.language)) throw new InvalidRunSpecError("language", `must be one of ${LANGUAGE_NAMES.join(", ")}`);
    language = ctx.languages.get(spec.language)!;
  }
  const hasCode = spec.code !== undefined;
  const hasCommand = spec.command !== undefined;
  if (hasCode === hasCommand) throw new InvalidRunSpecError(hasCode ? "command" : "code", "give exactly one of code and command");
  const args = spec.args ?? [];
  if (!Array.isArray(args) || args.length > MAX_ARGS || !args.every((a) => typeof a === "string" && !a.includes("\0"))) {
    throw new InvalidRunSpecError("args", `must be at most ${MAX_ARGS} strings without NUL`);
  }
  const userEnv = validateEnv(spec.env);
  if (spec.stdin !== undefined) {
    if (typeof spec.stdin !== "string" && !(spec.stdin instanceof Uint8Array)) throw new InvalidRunSpecError("stdin", "must be a string or bytes");
    const n = typeof spec.stdin === "string" ? Buffer.byteLength(spec.stdin) : spec.stdin.byteLength;
    if (n > MAX_STDIN_BYTES) throw new InvalidRunSpecError("stdin", `at most ${MAX_STDIN_BYTES} bytes`);
  }
  const files = checkFiles(spec.files, limits);
  if (hasCode) {
    if (!language) throw new InvalidRunSpecError("language", "is required with code");
    if (typeof spec.code !== "string") throw new InvalidRunSpecError("code", "must be a string");
    if (Buffer.byteLength(spec.code) > MAX_CODE_BYTES) throw new InvalidRunSpecError("code", `at most ${MAX_CODE_BYTES} bytes`);
    if (!language.available) throw new InvalidRunSpecError("language", `${language.name} is not available on this host: ${language.reason}`);
    // Modules written to the workspace import as they would from the script's own directory.
    const env: Record<string, string> = language.name === "python" ? { PYTHONPATH: WORKSPACE } : {};
    return { limits, language, program: programArgv(language, args), programFile: { name: language.file, content: spec.code }, env: { ...env, ...userEnv }, files };
  }
  const command = spec.command;
  if (!Array.isArray(command) || command.length === 0 || !command.every((a) => typeof a === "string" && !a.includes("\0"))) {
    throw new InvalidRunSpecError("command", "must be a non-empty array of strings without NUL");
  }
  if (spec.args !== undefined) throw new InvalidRunSpecError("args", "goes with code; put a command's arguments in command");
  return { limits, language, program: command, programFile: null, env: userEnv, files };
}

/** The SandboxRequest for a checked spec; a session's `files` are written into its workspace first. */
export async function planRun(ctx: RunContext, spec: RunSpec, checked: CheckedSpec, io: RunIO): Promise<SandboxRequest> {
  const base = baseRequest(ctx, checked.limits, checked.language?.addressSpaceOverheadBytes ?? ctx.maxOverhead);
  const req: SandboxRequest = {
    ...base,
    env: { ...base.env, ...checked.env },
    program: checked.program,
    programFile: checked.programFile,
    stdin: spec.stdin ?? null,
    io,
    workspace: { kind: "tmpfs", files: checked.files.map((f) => ({ path: f.path, content: f.content })) },
  };
  if (spec.workspaceDir !== undefined) {
    const ws = await bindWorkspace(ctx, spec.workspaceDir, checked.limits);
    for (const f of checked.files) {
      await writeWorkspaceFile(ws.dir, f.raw, Buffer.from(f.content), {
        owner: ctx.owner,
        quotaBytes: ws.watchQuotaBytes,
        maxBytes: checked.limits.fileSizeBytes,
      });
    }
    req.workspace = ws;
  }
  return req;
}

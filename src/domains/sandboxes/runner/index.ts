/**
 * The sandbox runner's front door: what the sandbox service (routes, sessions, metering) may
 * use. Everything else in this folder is internal to the runner.
 */
export { createRunner, type Runner, type WorkspaceFiles } from "./runner.ts";
export type { Posture, LanguagePosture, RunIO, RunResult, RunSpec, RunStatus, KilledReason, RunnerOptions } from "./types.ts";
export { DEFAULT_LIMITS, MAX_LIMITS, MIN_LIMITS, limitsJson, type Limits } from "./limits.ts";
export { LANGUAGE_NAMES, type LanguageName } from "./languages.ts";
export {
  SandboxError,
  InvalidRunSpecError,
  WorkspacePathError,
  FileTooLargeError,
  WorkspaceQuotaError,
  SandboxUnavailableError,
  type WorkspacePathProblem,
} from "./errors.ts";
export { MAX_FILE_WRITE_BYTES, MAX_FILE_READ_BYTES, readWorkspaceFile, writeWorkspaceFile, listWorkspaceDir, type DirEntry, type EntryType } from "./workspace-files.ts";
export { parseWorkspacePath } from "./workspace-paths.ts";
export type { Workspace, QuotaMode } from "./workspaces.ts";

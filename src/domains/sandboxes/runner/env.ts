/**
 * The environment a sandboxed program sees: a fixed base plus what the caller asked for.
 * Nothing of the gateway's own environment ever reaches a sandbox (bwrap itself is started
 * with an empty one, because its PID 1 keeps the environment it was started with and
 * /proc/1/environ is readable inside).
 */
import { InvalidRunSpecError } from "./errors.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_VARS = 128;
const MAX_VALUE_BYTES = 32 * 1024;
const MAX_TOTAL_BYTES = 128 * 1024;

/**
 * Refused names. LD_* would let a program's environment steer the dynamic loader of every
 * binary it starts (including the preludes the runner runs before it); BUN_BE_BUN decides
 * whether the gateway binary mounted for JavaScript acts as the Bun CLI or as the gateway.
 */
function refused(name: string): string | null {
  if (name.startsWith("LD_")) return "LD_* variables are not allowed";
  if (name === "BUN_BE_BUN") return "is reserved by the runner";
  return null;
}

export const BASE_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: "/opt/svc/bin:/usr/local/bin:/usr/bin:/bin",
  // Caches and dotfiles go to the private /tmp, not into the persistent workspace.
  HOME: "/tmp",
  TMPDIR: "/tmp",
  LANG: "C.UTF-8",
  USER: "sandbox",
  LOGNAME: "sandbox",
});

export function validateEnv(env: unknown, param = "env"): Record<string, string> {
  if (env === undefined) return {};
  if (typeof env !== "object" || env === null || Array.isArray(env)) throw new InvalidRunSpecError(param, "must be an object of strings");
  const entries = Object.entries(env);
  if (entries.length > MAX_VARS) throw new InvalidRunSpecError(param, `at most ${MAX_VARS} variables`);
  let total = 0;
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!NAME.test(name)) throw new InvalidRunSpecError(`${param}.${name}`, "name must match [A-Za-z_][A-Za-z0-9_]*");
    const why = refused(name);
    if (why) throw new InvalidRunSpecError(`${param}.${name}`, why);
    if (typeof value !== "string") throw new InvalidRunSpecError(`${param}.${name}`, "must be a string");
    if (value.includes("\0")) throw new InvalidRunSpecError(`${param}.${name}`, "must not contain NUL");
    const bytes = Buffer.byteLength(value);
    if (bytes > MAX_VALUE_BYTES) throw new InvalidRunSpecError(`${param}.${name}`, `at most ${MAX_VALUE_BYTES} bytes`);
    total += bytes + name.length;
    out[name] = value;
  }
  if (total > MAX_TOTAL_BYTES) throw new InvalidRunSpecError(param, `at most ${MAX_TOTAL_BYTES} bytes in all`);
  return out;
}

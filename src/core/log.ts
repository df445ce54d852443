/**
 * Structured logs: one JSON object per line on stderr (journald and `docker logs` keep them as
 * is). Fields whose names look like credentials are replaced before writing, so a careless
 * caller cannot leak a token into the journal.
 */
export type Level = "debug" | "info" | "warn" | "error";
const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD = /token|secret|authorization|password|api_key|private|cookie/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = SECRET_FIELD.test(k) ? "[redacted]" : v;
  return out;
}

export function createLogger(level: Level = "info", write: (line: string) => void = (l) => process.stderr.write(l + "\n")): Logger {
  const min = RANK[level];
  const emit = (lvl: Level, msg: string, fields: Record<string, unknown> = {}) => {
    if (RANK[lvl] < min) return;
    write(JSON.stringify({ t: new Date().toISOString(), level: lvl, msg, ...redact(fields) }));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Where replicas go: a Litestream replica URL. `file:///dir` keeps them in a local directory
 * (the default, beside the data dir); `s3://bucket/path?endpoint=…&region=…` and the other
 * schemes Litestream knows send them off the machine, with credentials taken from the
 * environment (AWS_ACCESS_KEY_ID, …), never from svc.toml.
 */
import { dirname, isAbsolute, basename, join } from "node:path";

export const REPLICA_SCHEMES = ["file", "s3", "gs", "abs", "sftp", "webdav", "webdavs", "nats", "oss"] as const;
export type ReplicaKind = (typeof REPLICA_SCHEMES)[number];

export interface Replica {
  kind: ReplicaKind;
  url: string;
  /** For file replicas: the directory. */
  dir: string | null;
}

export class ReplicaUrlError extends Error {}

/** Parses a replica URL; "off" (or empty) means replication is disabled and returns null. */
export function parseReplica(value: string): Replica | null {
  const text = value.trim();
  if (text === "" || text.toLowerCase() === "off") return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ReplicaUrlError(`"${redactReplicaUrl(text)}" is not a URL; use file:///absolute/dir or s3://bucket/path`);
  }
  const kind = url.protocol.replace(/:$/, "") as ReplicaKind;
  if (!REPLICA_SCHEMES.includes(kind)) throw new ReplicaUrlError(`replica scheme "${kind}" is not one Litestream supports (${REPLICA_SCHEMES.join(", ")})`);
  if (kind === "file") {
    if (url.host !== "") throw new ReplicaUrlError("a file replica URL has no host: file:///absolute/dir (three slashes)");
    const dir = decodeURIComponent(url.pathname);
    if (!isAbsolute(dir) || dir === "/") throw new ReplicaUrlError("a file replica needs an absolute directory other than /");
    return { kind, url: `file://${dir.replace(/\/+$/, "")}`, dir: dir.replace(/\/+$/, "") };
  }
  if (!url.host) throw new ReplicaUrlError(`a ${kind} replica URL needs a bucket or host: ${kind}://bucket/path`);
  return { kind, url: text, dir: null };
}

/** The URL with passwords and secret-looking query values replaced, for logs and output. */
export function redactReplicaUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "redacted";
    for (const key of [...url.searchParams.keys()]) {
      if (/key|secret|token|password|sas/i.test(key)) url.searchParams.set(key, "redacted");
    }
    return url.toString();
  } catch {
    return value.replace(/\/\/[^@/]*@/, "//redacted@");
  }
}

/** The default local replica: a directory beside the data dir (/var/lib/svc → /var/lib/svc-replica). */
export function defaultReplicaUrl(dataDir: string): string {
  return `file://${join(dirname(dataDir), `${basename(dataDir)}-replica`)}`;
}

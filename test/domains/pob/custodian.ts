/**
 * A stand-in custodian for proof-of-backing tests: a local HTTP server whose answers a test
 * changes between checks (a figure, an HTTP status), recording the Authorization header of
 * every request so a test can see which credential was sent.
 */
import { onCleanup } from "../../support/cleanup.ts";

export interface Answer {
  status: number;
  body: unknown;
}

export interface Custodian {
  url(path: string): string;
  /** What `path` answers from now on. */
  answer(path: string, a: Answer): void;
  /** The figure at /reserves/usd (the usual pointer) with HTTP 200. */
  reports(path: string, usd: string | number): void;
  /** Authorization headers received for `path`, oldest first ("" when none was sent). */
  authorizations(path: string): string[];
  stop(): void;
}

export function startCustodian(): Custodian {
  const answers = new Map<string, Answer>();
  const seen = new Map<string, string[]>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      seen.set(path, [...(seen.get(path) ?? []), req.headers.get("authorization") ?? ""]);
      const a = answers.get(path) ?? { status: 404, body: { error: "no such statement" } };
      return Response.json(a.body, { status: a.status });
    },
  });
  const stop = () => server.stop(true);
  onCleanup(stop);
  return {
    url: (path) => `http://127.0.0.1:${server.port}${path}`,
    answer: (path, a) => void answers.set(path, a),
    reports: (path, usd) => void answers.set(path, { status: 200, body: { as_of: "2026-11-21", reserves: { usd } } }),
    authorizations: (path) => [...(seen.get(path) ?? [])],
    stop,
  };
}

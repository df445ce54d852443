/**
 * A real webhook receiver on 127.0.0.1 for the delivery tests: a node:http server that checks
 * every X-Svc-Signature with node:crypto (independently of svc's own signing code), records
 * what arrived, and answers as scripted: a status, a hang (the sender times out), a connection
 * reset, a redirect. Closed after the test file (onCleanup), or by the test.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { onCleanup } from "./cleanup.ts";

/** How to answer one request: a status code, "hang" (never answer), "reset" (RST the connection), or a redirect. */
export type Behaviour = number | "hang" | "reset" | { redirect: string; status?: number };

export interface Received {
  path: string;
  headers: Record<string, string>;
  /** The raw body, exactly as it arrived. */
  body: string;
  /** The body parsed as JSON, or null. */
  json: any;
  /** HMAC-SHA256 of the raw body with the path's secret matches X-Svc-Signature; null when no secret is known for the path. */
  signatureValid: boolean | null;
  answered: Behaviour;
  at: number;
}

export interface Receiver {
  /** Base URL (http://127.0.0.1:PORT) plus `path`. */
  url(path?: string): string;
  /** The secret deliveries to `path` are signed with (learned from the POST /v1/webhooks answer). */
  setSecret(path: string, secret: string): void;
  /** Answers for the next requests, in order; after them, `fallback`. */
  script(...behaviours: Behaviour[]): void;
  /** What to answer once the script is used up: a behaviour or a function of the request. Default 200. */
  fallback: Behaviour | ((r: Received) => Behaviour);
  /** Delay before answering (after the request has been recorded and judged). */
  delayMs: number;
  received: Received[];
  /** Requests the receiver accepted (answered 2xx), whether or not the sender read the answer. */
  accepted(): Received[];
  /** Polls (bounded) until `done` holds; throws with `what` when it does not in time. */
  waitFor(done: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function verify(secret: string | undefined, body: Buffer, header: string | undefined): boolean | null {
  if (secret === undefined) return null;
  if (!header?.startsWith("sha256=")) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(header.slice("sha256=".length), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(): Promise<Receiver> {
  const secrets = new Map<string, string>();
  const queue: Behaviour[] = [];
  const hanging = new Set<ServerResponse>();

  const receiver: Receiver = {
    url: (path = "/") => `${base}${path}`,
    setSecret: (path, secret) => void secrets.set(path, secret),
    script: (...behaviours) => void queue.push(...behaviours),
    fallback: 200,
    delayMs: 0,
    received: [],
    accepted: () => receiver.received.filter((r) => typeof r.answered === "number" && r.answered >= 200 && r.answered < 300),
    async waitFor(done, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`receiver: timed out waiting for ${what}`);
        await Bun.sleep(10);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    const path = req.url ?? "/";
    const text = raw.toString("utf8");
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // recorded as null
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    const entry: Received = { path, headers, body: text, json, signatureValid: verify(secrets.get(path), raw, headers["x-svc-signature"]), answered: 200, at: Date.now() };
    entry.answered = queue.length ? queue.shift()! : typeof receiver.fallback === "function" ? receiver.fallback(entry) : receiver.fallback;
    receiver.received.push(entry);
    if (receiver.delayMs) await Bun.sleep(receiver.delayMs);
    const b = entry.answered;
    if (b === "reset") {
      const socket = req.socket as typeof req.socket & { resetAndDestroy?: () => void };
      if (socket.resetAndDestroy) socket.resetAndDestroy();
      else socket.destroy();
    } else if (b === "hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
    } else if (typeof b === "object") {
      res.writeHead(b.status ?? 302, { location: b.redirect }).end();
    } else {
      res.writeHead(b, { "content-type": "text/plain" }).end(b >= 200 && b < 300 ? "ok" : "no");
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void answer(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onCleanup(() => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    server.close();
  });
  return receiver;
}

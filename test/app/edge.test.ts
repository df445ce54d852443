/**
 * The HTTP edge as a hostile client meets it (issue: no 5xx from any input, one error shape):
 * bounded JSON shape, our 413 for any declared length on a real socket, 404/405/OPTIONS, bodies
 * of the wrong kind, prototype keys, and no parser internals in messages.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { join } from "node:path";
import { silentLogger } from "../../src/core/log.ts";
import { loadConfig, openContext } from "../../src/open.ts";
import { startServer } from "../../src/server.ts";
import { setupDataDir } from "../../src/setup.ts";
import { freePort } from "../support/binary.ts";
import { accountWithSession } from "../support/fixtures.ts";
import { ADMIN_TOKEN, bearer, type Harness, makeHarness, tempDir } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const deep = (n: number) => `{"message":${"[".repeat(n)}${"]".repeat(n)},"signature":"0x"}`;

describe("JSON shape", () => {
  test("thousands of brackets inside a string field answer 400 json_too_deep naming the limit, on the unauthenticated sign-in route too", async () => {
    h = makeHarness();
    for (const n of [65, 5_000, 200_000]) {
      const r = await h.json("POST", "/v1/auth/verify", { raw: deep(n), headers: { "content-type": "application/json" } });
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({ type: "json_too_deep", message: "request body nests arrays and objects more than 64 levels deep", max_depth: 64 });
    }
    // At the limit it is parsed and validated as usual.
    expect((await h.json("POST", "/v1/auth/verify", { raw: deep(63), headers: { "content-type": "application/json" } })).body.error.param).toBe("message");
  });

  test("brackets inside strings are text, not structure", async () => {
    h = makeHarness();
    const r = await h.json("POST", "/v1/auth/verify", { body: { message: "[".repeat(3_000), signature: "0x" } });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("siwe_rejected");
  });

  test("more values than max_json_elements answer 400 json_too_many_values", async () => {
    h = makeHarness({ config: (c) => (c.max_json_elements = 1000) });
    const r = await h.json("POST", "/v1/auth/verify", { raw: `{"message":[${"0,".repeat(1000)}0],"signature":"0x"}`, headers: { "content-type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: "json_too_many_values", max_values: 1000 });
  });
});

/** The real server (svc serve's startServer) on a free loopback port, with max_body_bytes at `limit`. */
async function servedWithBodyLimit(limit: number) {
  const dir = tempDir();
  setupDataDir({ configPath: join(dir, "svc.toml"), dataDir: dir, replica: "off", listen: `127.0.0.1:${await freePort()}` });
  const config = loadConfig({ dataDir: dir }, {});
  config.max_body_bytes = limit;
  return startServer(openContext(config, { log: silentLogger }));
}

describe("413 on a real socket", () => {
  test("a declared Content-Length over the limit answers the JSON error body, however large it claims to be", async () => {
    const server = await servedWithBodyLimit(2048);
    try {
      const { hostname, port } = new URL(server.url);
      for (const declared of [4096, 99_999_999, 2 ** 40]) {
        const raw = await new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () =>
            socket.write(`POST /v1/auth/nonce HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\nConnection: close\r\n\r\n{}`),
          );
          let out = "";
          socket.on("data", (d) => (out += d));
          socket.on("close", () => resolve(out));
          socket.on("error", reject);
          socket.setTimeout(5000, () => socket.destroy());
        });
        expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
        expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({
          error: { type: "payload_too_large", message: "request body exceeds the 2048-byte limit", limit_bytes: 2048 },
        });
      }
    } finally {
      await server.stop();
    }
  });
});

describe("a chunked body on a real socket (no Content-Length)", () => {
  /** Raw HTTP/1.1 over a socket: what the server answered, whole. */
  const exchange = (port: number, hostname: string, head: string, chunks: string[]) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, hostname, () => {
        socket.write(head);
        for (const c of chunks) socket.write(`${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`);
        socket.write("0\r\n\r\n");
      });
      let out = "";
      socket.on("data", (d) => (out += d));
      socket.on("close", () => resolve(out));
      socket.on("error", reject);
      socket.setTimeout(5000, () => socket.destroy());
    });

  test("is read as a stream and cut off at the limit (413); one within it is parsed like any other", async () => {
    const server = await servedWithBodyLimit(2048);
    try {
      const { hostname, port } = new URL(server.url);
      const head = "POST /v1/auth/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
      const big = await exchange(Number(port), hostname, head, ['{"message":"', "x".repeat(1500), "y".repeat(1500), '","signature":"0x"}']);
      expect(big.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
      expect(JSON.parse(big.slice(big.indexOf("\r\n\r\n") + 4)).error.type).toBe("payload_too_large");
      const small = await exchange(Number(port), hostname, head, ['{"message":', '"hello","signature":"0x"}']);
      expect(small.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
      // Parsed: the refusal is the sign-in's own (the message is no SIWE message), not the body's.
      expect(small).toContain('"siwe_rejected"');
    } finally {
      await server.stop();
    }
  });
});

describe("routes and methods", () => {
  test("unknown routes are 404, known paths with another method 405 with Allow, OPTIONS 204 with Allow: one error shape", async () => {
    h = makeHarness({ admin: true });
    const unknown = await h.json("GET", "/v1/nothing-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { type: "not_found", message: "no route for GET /v1/nothing-here" } });

    const put = await h.json("PUT", "/v1/keys");
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
    expect(put.body.error).toMatchObject({ type: "method_not_allowed", allowed_methods: ["GET", "HEAD", "POST"] });
    // A template path: /v1/keys/:id takes DELETE only.
    expect((await h.json("GET", "/v1/keys/key_x")).headers.get("allow")).toBe("DELETE, OPTIONS");
    expect((await h.json("DELETE", "/healthz")).status).toBe(405);

    const options = await h.request("OPTIONS", "/v1/admin/denylist");
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
    expect(await options.text()).toBe("");
  });
});

describe("bodies of the wrong kind", () => {
  test("null, arrays and scalars on an object route are 400 naming body; {} on a no-body route is fine, fields are not", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const auth = bearer(session.token);
    for (const raw of ["null", "[]", "3", '"text"', "true"]) {
      const r = await h.json("POST", "/v1/reports/sla", { raw, headers: { ...auth, "content-type": "application/json" } });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("body");
    }
    expect((await h.json("POST", "/v1/reports/sla", { body: {}, headers: auth })).status).toBe(200);
    expect((await h.json("POST", "/v1/auth/nonce", { body: {} })).status).toBe(200);
    const extra = await h.json("POST", "/v1/auth/nonce", { body: { surprise: 1 } });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toBe("body: this route takes no body fields (got surprise)");
    expect((await h.json("POST", "/v1/auth/nonce", { raw: "null", headers: { "content-type": "application/json" } })).body.error.param).toBe("body");
  });

  test("without credentials the answer is 401, whatever the body", async () => {
    h = makeHarness();
    expect((await h.json("POST", "/v1/reports/sla", { raw: "null", headers: { "content-type": "application/json" } })).status).toBe(401);
  });

  test("__proto__ and constructor are refused by name, like any unknown field, and pollute nothing", async () => {
    h = makeHarness({ admin: true });
    const sha = "a".repeat(64);
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const r = await h.json("POST", "/v1/admin/denylist", { raw: `{"sha256":"${sha}","${key}":{"polluted":true}}`, headers: { ...bearer(ADMIN_TOKEN), "content-type": "application/json" } });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(key);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("messages", () => {
  test("a SIWE parse failure says what is wrong with the message, never the parser's state", async () => {
    h = makeHarness();
    for (const message of ["hello", "svc.test wants you to sign in with your Ethereum account:\n0xnot-an-address\n"]) {
      const r = await h.json("POST", "/v1/auth/verify", { body: { message, signature: `0x${"0".repeat(130)}` } });
      expect(r.status).toBe(400);
      expect(r.body.error.type).toBe("siwe_rejected");
      expect(r.body.error.message).toStartWith("message is not a valid EIP-4361 message: ");
      expect(r.body.error.message).not.toMatch(/state|maxTreeDepth|nodeHits|\{/);
    }
  });
});

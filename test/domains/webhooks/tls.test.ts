/**
 * The outbound guard pins an https webhook to the address it checked (src/domains/webhooks/
 * ssrf.ts). That only works if the TLS handshake still uses the URL's name — for SNI and for
 * the certificate check — and the Host header still names it: otherwise every https receiver
 * on the public internet would fail its certificate check. A TLS receiver on 127.0.0.1 with a
 * certificate for hook.example (test/support/tls, self-signed, a test CA only) stands in for one.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";

const TLS_DIR = join(import.meta.dir, "..", "..", "support", "tls");
const CERT = join(TLS_DIR, "hook.example.crt");

const seen: { host: string | null; body: string }[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  tls: { cert: Bun.file(CERT), key: Bun.file(join(TLS_DIR, "hook.example.key")) },
  async fetch(req) {
    seen.push({ host: req.headers.get("host"), body: await req.text() });
    return new Response("ok");
  },
});
afterAll(() => receiver.stop(true));

async function postFromChild(serverName: string): Promise<{ status?: number; body?: string; error?: string }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "support", "pinned-post.ts"), String(receiver.port), serverName], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: CERT },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`pinned-post exited ${code}: ${err}`);
  return JSON.parse(out.trim());
}

describe("https webhooks pinned to an address", () => {
  test("are delivered with the URL's name as Host and TLS server name", async () => {
    const result = await postFromChild("hook.example");
    expect(result).toEqual({ status: 200, body: "ok" });
    expect(seen.at(-1)).toEqual({ host: `hook.example:${receiver.port}`, body: '{"ping":1}' });
  });

  test("a certificate for another name is refused, and nothing is delivered", async () => {
    const before = seen.length;
    const result = await postFromChild("other.example");
    expect(result.error).toMatch(/CERT|TLS/);
    expect(seen.length).toBe(before);
  });
});

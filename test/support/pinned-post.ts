/**
 * Child process for test/domains/webhooks/tls.test.ts: one postPinned() to an https target
 * pinned to 127.0.0.1, with the parent's test CA trusted through NODE_EXTRA_CA_CERTS (the only
 * way to add a CA to fetch without a test-only option in the product). Prints one JSON line.
 * Usage: bun test/support/pinned-post.ts PORT SERVER_NAME
 */
import { postPinned } from "../../src/domains/webhooks/ssrf.ts";

const [port, serverName] = process.argv.slice(2);
const target = { url: `https://127.0.0.1:${port}/in`, host: `${serverName}:${port}`, serverName: serverName! };
try {
  const res = await postPinned(target, { body: '{"ping":1}', headers: { "content-type": "application/json" }, signal: AbortSignal.timeout(5000) });
  console.log(JSON.stringify({ status: res.status, body: await res.text() }));
} catch (err) {
  console.log(JSON.stringify({ error: String((err as { code?: unknown }).code ?? (err as Error).message) }));
}

/**
 * The EVM JSON-RPC client against a local HTTP server that misbehaves on purpose: timeouts,
 * HTTP errors (retried only when worth it), JSON-RPC errors, malformed answers, an unreachable
 * node — and never the RPC URL (which may hold a provider key) in an error.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ChainClient, ChainRpcError, ERC20_TRANSFER_TOPIC, erc20Transfers, type TxReceipt } from "../../src/core/chain.ts";

type Behaviour = (body: { id: number; method: string }) => Response | Promise<Response>;
let behaviour: Behaviour = () => new Response("{}");
let requests = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    requests++;
    return behaviour((await req.json()) as { id: number; method: string });
  },
});
afterAll(() => server.stop(true));

const SECRET_PATH = "/v2/secret-provider-key";
const client = (opts: { timeoutMs?: number; retries?: number } = {}) => new ChainClient(`http://127.0.0.1:${server.port}${SECRET_PATH}`, { timeoutMs: 1_000, retries: 2, ...opts });
const rpc = (result: unknown) => (b: { id: number }) => Response.json({ jsonrpc: "2.0", id: b.id, result });

async function failure(p: Promise<unknown>): Promise<ChainRpcError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ChainRpcError);
    expect((err as Error).message).not.toContain("secret-provider-key");
    expect((err as Error).message).not.toContain(String(server.port));
    return err as ChainRpcError;
  }
  throw new Error("expected a failure");
}

describe("ChainClient", () => {
  test("reads chain id, head and receipts", async () => {
    behaviour = (b) => {
      if (b.method === "eth_chainId") return rpc("0x7a69")(b);
      if (b.method === "eth_blockNumber") return rpc("0x10")(b);
      return rpc({
        transactionHash: "0xAB",
        status: "0x1",
        blockNumber: "0xe",
        blockHash: "0xCD",
        logs: [{ address: "0xAA", topics: ["0x01"], data: "0x", logIndex: "0x3" }],
      })(b);
    };
    const c = client();
    expect(await c.chainId()).toBe(31337);
    expect(await c.blockNumber()).toBe(16n);
    expect(await c.transactionReceipt(`0x${"00".repeat(32)}`)).toEqual({
      transactionHash: "0xab",
      status: 1,
      blockNumber: 14n,
      blockHash: "0xcd",
      logs: [{ address: "0xaa", topics: ["0x01"], data: "0x", logIndex: 3, position: 0 }],
    });
    behaviour = rpc(null);
    expect(await c.transactionReceipt(`0x${"00".repeat(32)}`)).toBeNull();
  });

  test("a node that does not answer times out, retried a bounded number of times", async () => {
    behaviour = () => Bun.sleep(500).then(() => new Response("{}"));
    requests = 0;
    const err = await failure(client({ timeoutMs: 50, retries: 1 }).chainId());
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("within 50 ms");
    expect(requests).toBe(2);
  });

  test("5xx and 429 are retried; other HTTP errors and JSON-RPC errors are not", async () => {
    for (const [status, attempts] of [
      [503, 3],
      [429, 3],
      [401, 1],
    ] as const) {
      behaviour = () => new Response("no", { status });
      requests = 0;
      const err = await failure(client().blockNumber());
      expect(err.kind).toBe("http_status");
      expect(err.message).toContain(`HTTP ${status}`);
      expect(requests).toBe(attempts);
    }
    behaviour = (b) => Response.json({ jsonrpc: "2.0", id: b.id, error: { code: -32000, message: "header not found" } });
    requests = 0;
    const err = await failure(client().blockNumber());
    expect(err.kind).toBe("rpc_error");
    expect(err.message).toContain("header not found");
    expect(requests).toBe(1);
  });

  test("malformed answers are refused, not guessed at", async () => {
    for (const b of [() => new Response("not json"), rpc("twelve"), rpc({ status: "0x1" }), (x: { id: number }) => Response.json({ id: x.id })]) {
      behaviour = b;
      const c = client();
      const err = await failure(Promise.all([c.blockNumber(), c.transactionReceipt(`0x${"00".repeat(32)}`)]));
      expect(err.kind).toBe("bad_response");
    }
  });

  test("an unreachable node says so without naming the URL", async () => {
    const err = await failure(new ChainClient(`http://127.0.0.1:1${SECRET_PATH}`, { timeoutMs: 1_000, retries: 0 }).chainId());
    expect(err.kind).toBe("unreachable");
  });
});

describe("erc20Transfers", () => {
  const topic = (addr: string) => `0x${"0".repeat(24)}${addr}`;
  const receipt = (logs: TxReceipt["logs"]): TxReceipt => ({ transactionHash: "0x1", status: 1, blockNumber: 1n, blockHash: "0x2", logs });
  test("keeps ERC-20 Transfers (three topics, 32 bytes of data); skips ERC-721 Transfers and other events", () => {
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    const amount = `0x${(1_500_000).toString(16).padStart(64, "0")}`;
    const out = erc20Transfers(
      receipt([
        { address: "0xt0", topics: [ERC20_TRANSFER_TOPIC, topic(a), topic(b)], data: amount, logIndex: 7, position: 0 },
        { address: "0xnft", topics: [ERC20_TRANSFER_TOPIC, topic(a), topic(b), `0x${"0".repeat(63)}1`], data: "0x", logIndex: 8, position: 1 },
        { address: "0xt0", topics: [`0x${"1".repeat(64)}`, topic(a), topic(b)], data: amount, logIndex: 9, position: 2 },
      ]),
    );
    expect(out).toEqual([{ token: "0xt0", from: `0x${a}`, to: `0x${b}`, value: 1_500_000n, logIndex: 7, position: 0 }]);
  });
});

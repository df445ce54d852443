/**
 * A small EVM JSON-RPC client over fetch: chain id, head block, transaction receipts, and the
 * ERC-20 Transfer logs in a receipt. Deposits and x402 payments verify transfers with it; the
 * evm anchor backend also sends transactions with it (nonce, fee history, gas estimate, raw
 * send, balance — signing happens in the caller, never on the node).
 *
 * Every call has a timeout and a bounded number of retries (only for failures worth retrying:
 * network errors, timeouts, 429 and 5xx). RPC URLs often carry a provider's API key in their
 * path or query, so no error raised here ever contains the URL, and nothing is logged: the
 * caller names the chain.
 */

/** keccak256("Transfer(address,address,uint256)"): topic0 of every ERC-20 Transfer event. */
export const ERC20_TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** Function selectors (first 4 bytes of keccak256 of the signature) of the ERC-20 reads svc makes. */
export const ERC20_TOTAL_SUPPLY = "0x18160ddd";
export const ERC20_DECIMALS = "0x313ce567";

export type ChainErrorKind = "unreachable" | "timeout" | "http_status" | "rpc_error" | "bad_response";

/** A call to the node failed. The message is safe to show: it never holds the RPC URL. */
export class ChainRpcError extends Error {
  constructor(
    readonly kind: ChainErrorKind,
    message: string,
    /** The HTTP status, for kind "http_status". */
    readonly httpStatus?: number,
  ) {
    super(message);
  }

  /** Worth another attempt: the node was unreachable, slow, rate-limiting or failing, not refusing. */
  get retryable(): boolean {
    if (this.kind === "unreachable" || this.kind === "timeout") return true;
    return this.kind === "http_status" && (this.httpStatus === 429 || (this.httpStatus ?? 0) >= 500);
  }
}

export interface RpcLog {
  /** Emitting contract, lowercase. */
  address: string;
  /** Lowercase 0x-hex topics. */
  topics: string[];
  data: string;
  /** Index of the log in its block (what explorers show). */
  logIndex: number;
  /** Position of the log in this transaction's receipt: stable when a reorg moves the tx to another block. */
  position: number;
}

export interface TxReceipt {
  transactionHash: string;
  /** 1 succeeded, 0 reverted. */
  status: 0 | 1;
  blockNumber: bigint;
  blockHash: string;
  logs: RpcLog[];
}

export interface Erc20Transfer {
  token: string;
  from: string;
  to: string;
  value: bigint;
  logIndex: number;
  position: number;
}

export interface ChainClientOptions {
  /** Per attempt. */
  timeoutMs?: number;
  /** Extra attempts after the first, for retryable failures only. */
  retries?: number;
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/;
const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

const badResponse = (what: string) => new ChainRpcError("bad_response", `the node's answer to ${what} is malformed`);

function quantity(value: unknown, what: string): bigint {
  if (typeof value !== "string" || !HEX_QUANTITY.test(value)) throw badResponse(what);
  return BigInt(value);
}

function hexData(value: unknown, what: string): string {
  if (typeof value !== "string" || !HEX_DATA.test(value)) throw badResponse(what);
  return value.toLowerCase();
}

export class ChainClient {
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly fetchFn: typeof fetch;
  private nextId = 1;

  constructor(
    private readonly rpcUrl: string,
    options: ChainClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.fetchFn = options.fetch ?? fetch;
  }

  async chainId(): Promise<number> {
    const id = quantity(await this.call("eth_chainId", []), "eth_chainId");
    if (id > BigInt(Number.MAX_SAFE_INTEGER)) throw badResponse("eth_chainId");
    return Number(id);
  }

  async blockNumber(): Promise<bigint> {
    return quantity(await this.call("eth_blockNumber", []), "eth_blockNumber");
  }

  /** The receipt, or null while the transaction is unknown or not yet mined. */
  async transactionReceipt(hash: string): Promise<TxReceipt | null> {
    const what = "eth_getTransactionReceipt";
    const raw = (await this.call(what, [hash])) as Record<string, unknown> | null;
    if (raw === null) return null;
    if (typeof raw !== "object" || !Array.isArray(raw.logs)) throw badResponse(what);
    const status = quantity(raw.status, what);
    if (status !== 0n && status !== 1n) throw badResponse(what);
    const logs = raw.logs.map((entry, position): RpcLog => {
      const log = entry as Record<string, unknown>;
      if (!log || typeof log !== "object" || !Array.isArray(log.topics)) throw badResponse(what);
      return {
        address: hexData(log.address, what),
        topics: log.topics.map((t) => hexData(t, what)),
        data: hexData(log.data, what),
        logIndex: Number(quantity(log.logIndex, what)),
        position,
      };
    });
    return {
      transactionHash: hexData(raw.transactionHash, what),
      status: status === 1n ? 1 : 0,
      blockNumber: quantity(raw.blockNumber, what),
      blockHash: hexData(raw.blockHash, what),
      logs,
    };
  }

  /** Whether the node knows the transaction at all (mined or waiting in its mempool). */
  async transactionExists(hash: string): Promise<boolean> {
    return (await this.call("eth_getTransactionByHash", [hash])) !== null;
  }

  /** Transactions sent from `address`; with "pending", counting those still in the node's mempool (the next nonce to use). */
  async transactionCount(address: string, block: "latest" | "pending" = "pending"): Promise<bigint> {
    return quantity(await this.call("eth_getTransactionCount", [address, block]), "eth_getTransactionCount");
  }

  /**
   * totalSupply() and decimals() of an ERC-20 at the head, or null when the address does not
   * answer them as an ERC-20 does (a revert, no 32-byte word, or more than 36 decimals). The
   * evidence area's supply source and launches' token reads both come through here.
   */
  async erc20Supply(token: string): Promise<{ totalSupply: bigint; decimals: number } | null> {
    let supplyHex: string;
    let decimalsHex: string;
    try {
      [supplyHex, decimalsHex] = await Promise.all([this.ethCall(token, ERC20_TOTAL_SUPPLY), this.ethCall(token, ERC20_DECIMALS)]);
    } catch (err) {
      // A revert is the node's answer about this address, not a failure to reach the node.
      if (err instanceof ChainRpcError && err.kind === "rpc_error") return null;
      throw err;
    }
    if (supplyHex.length !== 66 || decimalsHex.length !== 66) return null;
    const decimals = BigInt(decimalsHex);
    return decimals > 36n ? null : { totalSupply: BigInt(supplyHex), decimals: Number(decimals) };
  }

  /** eth_call at the head: a read of contract state (ERC-20 totalSupply, decimals, paused…). Returns the raw 0x-hex result. */
  async ethCall(to: string, data: string): Promise<string> {
    return hexData(await this.call("eth_call", [{ to, data }, "latest"]), "eth_call");
  }

  async balance(address: string): Promise<bigint> {
    return quantity(await this.call("eth_getBalance", [address, "latest"]), "eth_getBalance");
  }

  /**
   * eth_feeHistory over the last `blocks` blocks: base fees (one more than `blocks`: the last is
   * the next block's) and, per block, the priority fees paid at each requested percentile.
   */
  async feeHistory(blocks: number, percentiles: number[]): Promise<{ baseFeePerGas: bigint[]; reward: bigint[][] }> {
    const what = "eth_feeHistory";
    const raw = (await this.call(what, [`0x${blocks.toString(16)}`, "latest", percentiles])) as { baseFeePerGas?: unknown; reward?: unknown } | null;
    if (!raw || typeof raw !== "object" || !Array.isArray(raw.baseFeePerGas) || !raw.baseFeePerGas.length) throw badResponse(what);
    const reward = raw.reward === undefined || raw.reward === null ? [] : raw.reward;
    if (!Array.isArray(reward)) throw badResponse(what);
    return {
      baseFeePerGas: raw.baseFeePerGas.map((v) => quantity(v, what)),
      reward: reward.map((row) => {
        if (!Array.isArray(row)) throw badResponse(what);
        return row.map((v) => quantity(v, what));
      }),
    };
  }

  async estimateGas(tx: { from: string; to: string; data: string; value?: bigint }): Promise<bigint> {
    const call = { from: tx.from, to: tx.to, data: tx.data, value: `0x${(tx.value ?? 0n).toString(16)}` };
    return quantity(await this.call("eth_estimateGas", [call]), "eth_estimateGas");
  }

  /** Broadcasts a signed transaction; the node answers with its hash. */
  async sendRawTransaction(raw: string): Promise<string> {
    const hash = hexData(await this.call("eth_sendRawTransaction", [raw]), "eth_sendRawTransaction");
    if (hash.length !== 66) throw badResponse("eth_sendRawTransaction");
    return hash;
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    let last: ChainRpcError | null = null;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await Bun.sleep(100 * 3 ** (attempt - 1));
      try {
        return await this.once(method, params);
      } catch (err) {
        if (!(err instanceof ChainRpcError)) throw err;
        last = err;
        if (!err.retryable) throw err;
      }
    }
    throw last!;
  }

  private async once(method: string, params: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    let res: Response;
    try {
      res = await this.fetchFn(this.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      // fetch's own messages can quote the URL: only the kind of failure leaves here.
      const name = (err as { name?: string } | null)?.name;
      if (name === "TimeoutError" || name === "AbortError") throw new ChainRpcError("timeout", `the node did not answer ${method} within ${this.timeoutMs} ms`);
      const code = (err as { code?: unknown } | null)?.code;
      throw new ChainRpcError("unreachable", `could not reach the node${typeof code === "string" && /^[A-Za-z_]+$/.test(code) ? ` (${code})` : ""}`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new ChainRpcError("http_status", `the node answered ${method} with HTTP ${res.status}`, res.status);
    }
    let body: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw badResponse(method);
    }
    if (!body || typeof body !== "object") throw badResponse(method);
    if (body.error) {
      const message = typeof body.error.message === "string" ? body.error.message.slice(0, 200) : "no message";
      throw new ChainRpcError("rpc_error", `the node refused ${method}: ${message}`);
    }
    if (!("result" in body)) throw badResponse(method);
    return body.result;
  }
}

/** A 32-byte topic holding an address → the lowercase address, or null when it is not one. */
function topicAddress(topic: string | undefined): string | null {
  if (!topic || topic.length !== 66 || !topic.startsWith("0x000000000000000000000000")) return null;
  return `0x${topic.slice(26)}`;
}

/**
 * The ERC-20 Transfer events in a receipt. ERC-721 also emits Transfer with this topic0, but
 * with the token id indexed (four topics, no data), so exactly three topics and 32 bytes of
 * data are required.
 */
export function erc20Transfers(receipt: TxReceipt): Erc20Transfer[] {
  const out: Erc20Transfer[] = [];
  for (const log of receipt.logs) {
    if (log.topics.length !== 3 || log.topics[0] !== ERC20_TRANSFER_TOPIC || log.data.length !== 66) continue;
    const from = topicAddress(log.topics[1]);
    const to = topicAddress(log.topics[2]);
    if (!from || !to) continue;
    out.push({ token: log.address, from, to, value: BigInt(log.data), logIndex: log.logIndex, position: log.position });
  }
  return out;
}

/** scheme://host[:port] and "/…" when there was more: never a path or query that may hold a key. */
export function redactRpcUrl(url: string): string {
  try {
    const u = new URL(url);
    const more = (u.pathname !== "/" && u.pathname !== "") || u.search !== "";
    return `${u.protocol}//${u.host}${more ? "/…" : ""}`;
  } catch {
    return "(unparseable URL)";
  }
}

/**
 * The official MCP SDK client, pointed at svc over real HTTP with a bearer credential, and the
 * checks every receipted tool result shares: the receipt in _meta["svc/receipt"] recovers (viem)
 * to the deployment's signer.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Hex, recoverMessageAddress } from "viem";

export interface Connected {
  client: Client;
  /** Every response body the client received, as text (to prove what never reached it). */
  bodies: string[];
  close(): Promise<void>;
}

export async function connect(url: string, token: string): Promise<Connected> {
  const bodies: string[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      bodies.push(await res.clone().text());
      return res;
    },
  });
  const client = new Client({ name: "svc-test-client", version: "1.0.0" });
  await client.connect(transport);
  return { client, bodies, close: () => client.close() };
}

export interface ReceiptMeta {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
  cost_micro_usd: number;
}

/** The result's receipt, verified with viem against `signer`; returns the decoded payload. */
export async function verifiedReceipt(result: unknown, signer: string): Promise<any> {
  const meta = (result as { _meta?: Record<string, unknown> })._meta?.["svc/receipt"] as ReceiptMeta | undefined;
  if (!meta) throw new Error(`no receipt in _meta: ${JSON.stringify(result)}`);
  const recovered = await recoverMessageAddress({ message: meta.receipt, signature: meta.signature as Hex });
  if (recovered.toLowerCase() !== signer.toLowerCase() || meta.signer.toLowerCase() !== signer.toLowerCase()) {
    throw new Error(`receipt signed by ${recovered}, not ${signer}`);
  }
  const payload = JSON.parse(Buffer.from(meta.receipt, "base64url").toString("utf8"));
  if (payload.id !== meta.id || payload.cost_micro_usd !== meta.cost_micro_usd) throw new Error("the receipt's _meta does not match its payload");
  return payload;
}

export const text = (result: unknown): string => (((result as { content?: unknown }).content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? "").join("");

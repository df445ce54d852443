/**
 * Sealed-call tests' helpers: a harness with a commit price, a funded account with keys, and
 * the checks a reader would make without svc — the commitment recomputed from salt and text, a
 * receipt's signer recovered with viem, an inclusion proof folded up to its root.
 */
import { createHash } from "node:crypto";
import { recoverMessageAddress, type Hex } from "viem";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

export const USD = 1_000_000;
export const COMMIT_PRICE = 2_000;

export function callsHarness(price = COMMIT_PRICE): Harness {
  return makeHarness({ config: (c) => void (c.calls.commit_price_micro_usd = price) });
}

export function funded(h: Harness, credit = 10 * USD) {
  const { account } = accountWithSession(h.ctx);
  if (credit > 0) h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id);
  return { accountId: account.id, key, auth: { headers: bearer(key.token) } };
}

export const commit = (h: Harness, token: string, body: unknown) => h.json("POST", "/v1/calls/commit", { headers: bearer(token), body });
export const reveal = (h: Harness, token: string, id: string, body?: unknown) => h.json("POST", `/v1/calls/commit/${id}/reveal`, { headers: bearer(token), ...(body === undefined ? {} : { body }) });

/**
 * The commitment as docs/calls.md states it, computed here on its own: SHA-256 over the salt's
 * 32 raw bytes immediately followed by the text's UTF-8 bytes, as lowercase hex.
 */
export function recompute(saltHex: string, text: string): string {
  const bytes = Buffer.concat([Buffer.from(saltHex, "hex"), Buffer.from(text, "utf8")]);
  return createHash("sha256").update(bytes).digest("hex");
}

/** Recovers the receipt's EIP-191 signer with viem, checks it against GET /v1/receipts/pubkey, returns the decoded payload. */
export async function verifiedPayload(h: Harness, r: { receipt: string; signature: string; signer: string }): Promise<any> {
  const recovered = await recoverMessageAddress({ message: r.receipt, signature: r.signature as Hex });
  const pub = await h.json("GET", "/v1/receipts/pubkey");
  if (recovered.toLowerCase() !== String(pub.body.address).toLowerCase()) throw new Error(`signed by ${recovered}, not ${pub.body.address}`);
  if (recovered.toLowerCase() !== r.signer.toLowerCase()) throw new Error(`signed by ${recovered}, not the stated ${r.signer}`);
  return JSON.parse(Buffer.from(r.receipt, "base64url").toString("utf8"));
}

const sha = (...parts: Buffer[]) => createHash("sha256").update(Buffer.concat(parts)).digest();

/** RFC 9162 §2.1.3.2: folds an inclusion proof from the receipt's leaf and returns the root it reaches (hex), or null when the proof does not fit the tree. */
export function rootFromProof(receipt: string, index: number, size: number, proof: string[]): string | null {
  let fn = index;
  let sn = size - 1;
  let r = sha(Buffer.from([0]), Buffer.from(receipt, "utf8"));
  for (const p of proof.map((x) => Buffer.from(x, "hex"))) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = sha(Buffer.from([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      r = sha(Buffer.from([1]), r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? r.toString("hex") : null;
}

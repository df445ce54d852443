/**
 * Parties for the post tests: an account with an API key, some credit and (optionally) a
 * claimed handle, made through the same service functions and routes the product uses.
 */
import { expect } from "bun:test";
import { recoverMessageAddress, type Hex } from "viem";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness, type HarnessOptions } from "../../support/harness.ts";

export const USD = 1_000_000;
/** The default postage the tests run with (set explicitly, not left to the shipped default). */
export const POSTAGE = 10_000;

export interface Party {
  accountId: string;
  keyId: string;
  token: string;
  handle: string | null;
  auth: { headers: Record<string, string> };
}

export function postHarness(options: HarnessOptions = {}): Harness {
  return makeHarness({
    ...options,
    config: (c) => {
      c.post.default_postage_micro_usd = POSTAGE;
      options.config?.(c);
    },
  });
}

/** An account with a key, `credit` micro-USD deposited, and the handle claimed unless null. */
export async function party(h: Harness, handle: string | null, credit = 0, settings: Record<string, unknown> = {}): Promise<Party> {
  const { account } = accountWithSession(h.ctx);
  const key = apiKeyFor(h.ctx, account.id);
  if (credit > 0) h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  const p: Party = { accountId: account.id, keyId: key.id, token: key.token, handle, auth: { headers: bearer(key.token) } };
  if (handle !== null || Object.keys(settings).length) {
    const r = await h.json("PUT", "/v1/post/settings", { ...p.auth, body: { ...(handle === null ? {} : { handle }), ...settings } });
    expect(r.status).toBe(200);
  }
  return p;
}

export const send = (h: Harness, from: Party, body: Record<string, unknown>) => h.json("POST", "/v1/post/messages", { ...from.auth, body });

export const balance = (h: Harness, p: Party) => h.ctx.ledger.balance(p.accountId);

/** The account's ledger entries, oldest first: what moved, of which kind, with which reference. */
export function entries(h: Harness, p: Party) {
  return h.ctx.db
    .query<{ kind: string; amount_micro_usd: number; ref_type: string | null; ref_id: string | null }, [string]>(
      "SELECT kind, amount_micro_usd, ref_type, ref_id FROM ledger_entries WHERE account_id = ? ORDER BY seq",
    )
    .all(p.accountId);
}

/** Recovers the receipt's EIP-191 signer with viem and compares it with the deployment's published signer; returns the payload. */
export async function verifyReceipt(h: Harness, receipt: { receipt: string; signature: string }): Promise<any> {
  const recovered = await recoverMessageAddress({ message: receipt.receipt, signature: receipt.signature as Hex });
  const pub = await h.json("GET", "/v1/receipts/pubkey");
  expect(recovered.toLowerCase()).toBe(String(pub.body.address).toLowerCase());
  return JSON.parse(Buffer.from(receipt.receipt, "base64url").toString("utf8"));
}

/**
 * Passport tests' helpers: tenants with history made through the real meter (every settle
 * mints a receipt), and the checks a reader makes without svc — a canonical-JSON encoder of
 * its own to recompute the commitment, viem to recover the signer, an RFC 9162 fold of the
 * siblings up to the root.
 */
import { createHash, randomBytes } from "node:crypto";
import { recoverMessageAddress, type Hex } from "viem";
import { meterWork } from "../../../src/core/metered-work.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness } from "../../support/harness.ts";

export const USD = 1_000_000;

export interface Tenant {
  accountId: string;
  auth: { headers: Record<string, string> };
  keyId: string;
  keyToken: string;
}

/** A funded account with a session and one key (capped unless asked otherwise). */
export function tenant(h: Harness, opts: { monthlyCap?: number | null } = {}): Tenant {
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 10 * USD, { type: "deposit" });
  const cap = opts.monthlyCap === undefined ? USD : opts.monthlyCap;
  const key = apiKeyFor(h.ctx, account.id, cap === null ? {} : { monthlyCap: cap });
  return { accountId: account.id, auth: { headers: bearer(session.token) }, keyId: key.id, keyToken: key.token };
}

export function linkWallet(h: Harness, t: Tenant): string {
  const address = `0x${randomBytes(20).toString("hex")}`;
  addWallet(h.ctx, t.accountId, address);
  return address;
}

/** One unit of priced work through the meter, chained into `runId` when given: one receipt. */
export async function work(h: Harness, t: Tenant, runId: string | null, price = 1_500): Promise<void> {
  await meterWork(h.ctx.meter, h.ctx.log, { accountId: t.accountId, keyId: t.keyId, price, kind: "test_work", resource: "passport-test", runId }, async () => ({
    result: null,
    status: "succeeded",
    units: { items: 1 },
  }));
}

export const mint = (h: Harness, t: Tenant, body: Record<string, unknown>) => h.json("POST", "/v1/passport", { headers: t.auth.headers, body });

/**
 * Canonical JSON written here from the rule commitment_alg states, independently of svc's
 * src/core/canonical-json.ts: keys sorted by Unicode code point (compared as arrays of code
 * points, not UTF-16 units), arrays in order, integers only, JSON's minimal escaping, no spaces.
 */
export function canonical(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error(`not an integer: ${value}`);
    return value.toString(10);
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "[" + value.map((v) => canonical(v)).join(",") + "]";
  const obj = value as Record<string, unknown>;
  const byCodePoint = (a: string, b: string) => {
    const x = [...a].map((c) => c.codePointAt(0)!);
    const y = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  const parts: string[] = [];
  for (const k of Object.keys(obj).sort(byCodePoint)) parts.push(JSON.stringify(k) + ":" + canonical(obj[k]));
  return "{" + parts.join(",") + "}";
}

export const sha256Hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

export const decode = (credential: string): any => JSON.parse(Buffer.from(credential, "base64url").toString("utf8"));

/** Recovers the credential's EIP-191 signer with viem and checks it against GET /v1/receipts/pubkey. */
export async function recoveredSigner(h: Harness, credential: string, signature: string): Promise<string> {
  const recovered = await recoverMessageAddress({ message: credential, signature: signature as Hex });
  const pub = await h.json("GET", "/v1/receipts/pubkey");
  if (recovered.toLowerCase() !== String(pub.body.address).toLowerCase()) throw new Error(`signed by ${recovered}, not ${pub.body.address}`);
  return recovered;
}

/**
 * RFC 9162 §2.1.3.2 fold from a leaf string: the sealed calls' tests already hold one, and a
 * passport leaf is the commitment's 64 hex characters taken as bytes, just as a call's leaf is
 * its receipt string.
 */
export { rootFromProof as foldToRoot } from "../calls/calls-support.ts";

/**
 * Signing in as a real wallet would: viem builds the EIP-4361 message and signs it with a
 * private key (no svc code on the signing side).
 */
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import type { Harness } from "./harness.ts";

export const SITE = "https://svc.test";

export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export type MessageFields = Partial<Parameters<typeof createSiweMessage>[0]>;

/** A fresh nonce from the service, a message for it (fields overridable), and the signature. */
export async function signedMessage(h: Harness, wallet: PrivateKeyAccount, fields: MessageFields = {}) {
  const { nonce } = (await h.json("POST", "/v1/auth/nonce")).body as { nonce: string };
  const message = createSiweMessage({
    address: wallet.address,
    chainId: 1,
    domain: "svc.test",
    nonce,
    uri: SITE,
    version: "1",
    issuedAt: new Date(h.clock.now()),
    statement: "Sign in to svc",
    ...fields,
  });
  return { message, signature: await wallet.signMessage({ message }), nonce };
}

/** Signs in and returns the session response (asserting success). */
export async function signIn(h: Harness, wallet: PrivateKeyAccount, fields: MessageFields = {}) {
  const body = await signedMessage(h, wallet, fields);
  const r = await h.json("POST", "/v1/auth/verify", { body: { message: body.message, signature: body.signature } });
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r as { status: number; body: { token: string; account_id: string; session_id: string; wallet_address: string; account_created: boolean; expires_at: string }; headers: Headers };
}

/**
 * A signing thread of the SigningPool (signing-pool.ts): EIP-191 signatures, the same function
 * the event loop would run (eip191.ts), on another core. Each request carries the key it signs
 * with, so a signer rotation needs nothing from the thread.
 */
import { signMessage, useSecp256k1 } from "./eip191.ts";

declare const self: Worker;

export interface SignRequest {
  id: number;
  key: Uint8Array;
  message: string;
}

/** The first message a thread gets: which secp256k1 implementation to sign with (receipts.secp256k1). */
export interface SignerChoice {
  use: string;
}

export type SignAnswer = { id: number; signature: string } | { id: number; error: string };

self.onmessage = (event: MessageEvent<SignRequest | SignerChoice>) => {
  if ("use" in event.data) {
    // The loop made the same choice first, so a setting that cannot be used never reaches here.
    useSecp256k1(event.data.use);
    return;
  }
  const { id, key, message } = event.data;
  try {
    self.postMessage({ id, signature: signMessage(key, message) } satisfies SignAnswer);
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies SignAnswer);
  }
};

/**
 * A signing thread of the SigningPool (signing-pool.ts): EIP-191 signatures, the same function
 * the event loop would run (eip191.ts), on another core. Each request carries the key it signs
 * with, so a signer rotation needs nothing from the thread.
 */
import { signMessage } from "./eip191.ts";

declare const self: Worker;

export interface SignRequest {
  id: number;
  key: Uint8Array;
  message: string;
}

export type SignAnswer = { id: number; signature: string } | { id: number; error: string };

self.onmessage = (event: MessageEvent<SignRequest>) => {
  const { id, key, message } = event.data;
  try {
    self.postMessage({ id, signature: signMessage(key, message) } satisfies SignAnswer);
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies SignAnswer);
  }
};

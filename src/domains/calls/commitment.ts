/**
 * The commitment of a sealed call: SHA-256 over the salt's bytes followed by the text's UTF-8
 * bytes, nothing between them, as lowercase hex. Whoever holds the salt and the text can
 * recompute it with any sha256 tool (docs/calls.md "Recomputing a commitment").
 */
import { createHash, randomBytes } from "node:crypto";
import { SALT_BYTES } from "./limits.ts";

export const COMMITMENT_ALG =
  `sha256(salt || text): the ${SALT_BYTES} salt bytes (salt_hex decoded from hex, not the hex string) immediately followed by the text's UTF-8 bytes exactly as sent ` +
  "(no normalisation, no separator, no length prefix, no trailing newline); the digest in lowercase hex";

export const newSalt = (): Buffer => randomBytes(SALT_BYTES);

export function commitmentOf(salt: Uint8Array, text: string): string {
  return createHash("sha256").update(salt).update(Buffer.from(text, "utf8")).digest("hex");
}

/**
 * The service's signing key (secp256k1), made once by `svc setup` and kept sealed on disk under
 * the master key. Receipts and signed statements are EIP-191 signatures by it; its address is
 * what verifiers compare against.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { addressOfSecretKey, generateSecretKey, signMessage } from "./eip191.ts";
import type { Sealer } from "./seal.ts";

const AAD = "svc/signer-key";

export class Signer {
  readonly address: string;

  constructor(private readonly secretKey: Uint8Array) {
    this.address = addressOfSecretKey(secretKey);
  }

  sign(message: string | Uint8Array): string {
    return signMessage(this.secretKey, message);
  }

  /** Creates the sealed key file (0600) unless it exists. Returns true when it created one. */
  static createKeyFile(path: string, sealer: Sealer): boolean {
    if (existsSync(path)) return false;
    writeFileSync(path, sealer.seal(bytesToHex(generateSecretKey()), AAD) + "\n", { mode: 0o600, flag: "wx" });
    return true;
  }

  static fromKeyFile(path: string, sealer: Sealer): Signer {
    if (!existsSync(path)) throw new Error(`signer key file ${path} is missing; run \`svc setup\``);
    return new Signer(hexToBytes(sealer.openText(readFileSync(path, "utf8").trim(), AAD)));
  }
}

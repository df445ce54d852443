/**
 * The service's signing key (secp256k1), made once by `svc setup` and kept sealed on disk under
 * the master key. Receipts and signed statements are EIP-191 signatures by it; its address is
 * what verifiers compare against.
 *
 * Rotation (`svc keys rotate-signer`, src/domains/receipts/signers.ts) replaces the key file
 * and records the new address as current in the database, usually from another process than
 * the server's. A signer that follows rotations asks, before each use, which address must sign
 * now, and loads the key file again when that changed: a running server switches at its next
 * signature, so it never signs with a key the database already calls retired.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { addressOfSecretKey, generateSecretKey, signDigest, signMessage } from "./eip191.ts";
import type { Sealer } from "./seal.ts";
import type { SigningPool } from "./signing-pool.ts";

const AAD = "svc/signer-key";

/** How a signer learns of a rotation made elsewhere (core knows nothing of where that is recorded). */
export interface SignerRotation {
  /** The address that must sign now; null when none is recorded yet. */
  currentAddress(): string | null;
  /** The secret key the key file holds now. */
  loadKey(): Uint8Array;
}

export class Signer {
  private secretKey: Uint8Array;
  private currentAddress: string;
  private rotation: SignerRotation | null = null;

  constructor(secretKey: Uint8Array) {
    this.secretKey = secretKey;
    this.currentAddress = addressOfSecretKey(secretKey);
  }

  get address(): string {
    this.follow();
    return this.currentAddress;
  }

  sign(message: string | Uint8Array): string {
    this.follow();
    return signMessage(this.secretKey, message);
  }

  /** sign() and the address that signed, after one check for a rotation instead of two (every inline receipt asks for both). */
  signWithAddress(message: string | Uint8Array): { signature: string; signer: string } {
    this.follow();
    return { signature: signMessage(this.secretKey, message), signer: this.currentAddress };
  }

  /**
   * A raw signature over a 32-byte digest the caller already hashed (an EIP-712 typed-data hash):
   * no EIP-191 prefix is added. 0x-hex r ‖ s ‖ v (65 bytes, v = 27 or 28), like sign().
   */
  signDigest(digest: Uint8Array): string {
    if (digest.length !== 32) throw new Error("signDigest takes a 32-byte digest");
    this.follow();
    return signDigest(this.secretKey, digest);
  }

  /** The same signature, made on a signing pool's thread (the key travels with the request). */
  signOn(pool: SigningPool, message: string): Promise<{ signature: string; signer: string }> {
    this.follow();
    const signer = this.currentAddress;
    return pool.sign(this.secretKey, message).then((signature) => ({ signature, signer }));
  }

  /** From now on, check before each use that this key is still the one that must sign. */
  followRotations(rotation: SignerRotation): void {
    this.rotation = rotation;
  }

  private follow(): void {
    const current = this.rotation?.currentAddress();
    if (!current || current === this.currentAddress) return;
    const key = this.rotation!.loadKey();
    const address = addressOfSecretKey(key);
    // Signing with a key the record does not name would mint receipts nobody can place; refuse.
    if (address !== current) {
      throw new Error(
        `the signer key file holds ${address} but the current signer on record is ${current}: a rotation is half done, or the file was replaced by hand; ` +
          "if no rotation is running, restart svc so it records the key file's signer (docs/receipts.md)",
      );
    }
    this.secretKey = key;
    this.currentAddress = address;
  }

  /** Creates the sealed key file (0600) unless it exists. Returns true when it created one. */
  static createKeyFile(path: string, sealer: Sealer): boolean {
    if (existsSync(path)) return false;
    writeFileSync(path, sealer.seal(bytesToHex(generateSecretKey()), AAD) + "\n", { mode: 0o600, flag: "wx" });
    return true;
  }

  /**
   * Replaces the key file with a new key (rotation): written beside it, then renamed over it,
   * so a crash leaves either the old key or the new one, never a partial file. The old key is
   * gone from disk afterwards.
   */
  static replaceKeyFile(path: string, sealer: Sealer): Signer {
    const key = generateSecretKey();
    const next = `${path}.next`;
    rmSync(next, { force: true }); // a leftover of a rotation that crashed before its rename
    const fd = openSync(next, "wx", 0o600);
    try {
      writeSync(fd, sealer.seal(bytesToHex(key), AAD) + "\n");
      fsyncSync(fd); // on disk before it replaces the only other copy of a key
    } finally {
      closeSync(fd);
    }
    renameSync(next, path);
    const dir = openSync(dirname(path), "r");
    try {
      fsyncSync(dir); // and the rename itself
    } finally {
      closeSync(dir);
    }
    return new Signer(key);
  }

  static readKeyFile(path: string, sealer: Sealer): Uint8Array {
    if (!existsSync(path)) throw new Error(`signer key file ${path} is missing; run \`svc setup\``);
    return hexToBytes(sealer.openText(readFileSync(path, "utf8").trim(), AAD));
  }

  static fromKeyFile(path: string, sealer: Sealer): Signer {
    return new Signer(Signer.readKeyFile(path, sealer));
  }
}

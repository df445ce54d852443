/**
 * Sealing at rest: AES-256-GCM with a random 96-bit nonce per value and additional data (AAD)
 * that binds the ciphertext to its record, so a sealed value copied into another row or field
 * fails to open. Sealed text is "v1.<key id>.<base64url(nonce ‖ ciphertext ‖ tag)>"; the key id
 * lets a rotated master key file (newest key on the first line) still open older values.
 *
 * The master key file is created once by `svc setup` with mode 0600 and never overwritten.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";

export class SealError extends Error {}

const VERSION = "v1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const keyId = (key: Buffer): string => createHash("sha256").update(key).digest("hex").slice(0, 8);

export class Sealer {
  private readonly keys = new Map<string, Buffer>();
  private readonly primary: string;

  /** keys: newest first; the first one seals, all of them open. */
  constructor(keys: Buffer[]) {
    if (!keys.length) throw new SealError("no master key");
    for (const key of keys) {
      if (key.length !== 32) throw new SealError("a master key must be 32 bytes");
      this.keys.set(keyId(key), key);
    }
    this.primary = keyId(keys[0]!);
  }

  get keyId(): string {
    return this.primary;
  }

  static generateKey(): Buffer {
    return randomBytes(32);
  }

  /** Creates the master key file (0600) unless it exists. Returns true when it created one. */
  static createKeyFile(path: string): boolean {
    if (existsSync(path)) return false;
    writeFileSync(path, Sealer.generateKey().toString("hex") + "\n", { mode: 0o600, flag: "wx" });
    chmodSync(path, 0o600);
    return true;
  }

  static fromKeyFile(path: string): Sealer {
    if (!existsSync(path)) throw new SealError(`master key file ${path} is missing; run \`svc setup\``);
    const lines = readFileSync(path, "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
    const keys = lines.map((l) => {
      if (!/^[0-9a-f]{64}$/i.test(l)) throw new SealError(`master key file ${path} is malformed (expected 64 hex characters per line)`);
      return Buffer.from(l, "hex");
    });
    return new Sealer(keys);
  }

  /** True when the file is readable or writable by anyone but its owner. */
  static keyFileTooOpen(path: string): boolean {
    return (statSync(path).mode & 0o077) !== 0;
  }

  seal(plaintext: string | Uint8Array, aad: string): string {
    const key = this.keys.get(this.primary)!;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    cipher.setAAD(Buffer.from(aad, "utf8"));
    const body = Buffer.concat([cipher.update(typeof plaintext === "string" ? Buffer.from(plaintext, "utf8") : plaintext), cipher.final()]);
    const sealed = Buffer.concat([nonce, body, cipher.getAuthTag()]);
    return `${VERSION}.${this.primary}.${sealed.toString("base64url")}`;
  }

  open(sealed: string, aad: string): Buffer {
    const [version, kid, data] = sealed.split(".");
    if (version !== VERSION || !kid || data === undefined) throw new SealError("not a sealed value");
    const key = this.keys.get(kid);
    if (!key) throw new SealError(`sealed with an unknown master key (${kid})`);
    const raw = Buffer.from(data, "base64url");
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SealError("sealed value is truncated");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new SealError("sealed value failed authentication (tampered, or bound to another record)");
    }
  }

  openText(sealed: string, aad: string): string {
    return this.open(sealed, aad).toString("utf8");
  }

  /** A key derived (HKDF-SHA256) for one purpose, e.g. cursor MACs, so the master key itself serves only sealing. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync("sha256", this.keys.get(this.primary)!, Buffer.alloc(0), `svc/${purpose}`, 32));
  }
}

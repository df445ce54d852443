import { describe, expect, test } from "bun:test";
import { bytesToHex } from "@noble/hashes/utils.js";
import { getAddress, hashMessage as viemHash, recoverMessageAddress as viemRecover, verifyMessage } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { addressOfSecretKey, generateSecretKey, hashMessage, recoverMessageAddress, signMessage, toChecksumAddress } from "../../src/core/eip191.ts";
import { Sealer } from "../../src/core/seal.ts";
import { Signer } from "../../src/core/signer.ts";
import { join } from "node:path";
import { tempDir } from "../support/harness.ts";

describe("EIP-191 personal_sign, checked against viem", () => {
  const key = generateSecretKey();
  const account = privateKeyToAccount(`0x${bytesToHex(key)}`);

  test("same digest and address as viem", () => {
    for (const m of ["hello", "", "ünïcödé ✓", "x".repeat(1000)]) expect("0x" + bytesToHex(hashMessage(m))).toBe(viemHash(m));
    expect(addressOfSecretKey(key)).toBe(account.address);
  });

  test("our signature verifies with viem, and viem's recovers with ours", async () => {
    const message = "eyJ2IjoxLCJraW5kIjoidGVzdCJ9";
    const ours = signMessage(key, message);
    expect(ours).toMatch(/^0x[0-9a-f]{130}$/);
    expect(["1b", "1c"]).toContain(ours.slice(-2));
    expect(await verifyMessage({ address: account.address, message, signature: ours as `0x${string}` })).toBe(true);
    expect(await viemRecover({ message, signature: ours as `0x${string}` })).toBe(account.address);
    expect(ours).toBe(await account.signMessage({ message })); // RFC 6979: deterministic, identical
    expect(recoverMessageAddress(message, await account.signMessage({ message: "other" }))).not.toBe(account.address);
    expect(recoverMessageAddress("other", await account.signMessage({ message: "other" }))).toBe(account.address);
  });

  test("malformed signatures are refused", () => {
    expect(() => recoverMessageAddress("m", "0x1234")).toThrow(/65 bytes/);
    expect(() => recoverMessageAddress("m", "0x" + "11".repeat(64) + "05")).toThrow(/recovery/);
  });

  test("EIP-55 checksums match viem", () => {
    for (let i = 0; i < 20; i++) {
      const addr = addressOfSecretKey(generateSecretKey());
      expect(toChecksumAddress(addr.toLowerCase())).toBe(getAddress(addr.toLowerCase()));
    }
    expect(() => toChecksumAddress("0x123")).toThrow();
  });

  test("the signer key is sealed on disk and reloads to the same address", () => {
    const dir = tempDir();
    const sealer = new Sealer([Sealer.generateKey()]);
    const path = join(dir, "signer.key");
    expect(Signer.createKeyFile(path, sealer)).toBe(true);
    expect(Signer.createKeyFile(path, sealer)).toBe(false);
    const a = Signer.fromKeyFile(path, sealer);
    expect(Signer.fromKeyFile(path, sealer).address).toBe(a.address);
    expect(recoverMessageAddress("m", a.sign("m"))).toBe(a.address);
    expect(() => Signer.fromKeyFile(path, new Sealer([Sealer.generateKey()]))).toThrow();
  });
});

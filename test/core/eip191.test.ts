import { describe, expect, test } from "bun:test";
import { bytesToHex } from "@noble/hashes/utils.js";
import { getAddress, hashMessage as viemHash, recoverMessageAddress as viemRecover, verifyMessage } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { addressOfSecretKey, generateSecretKey, hashMessage, nativeSecp256k1, recoverMessageAddress, signMessage, toChecksumAddress, useSecp256k1 } from "../../src/core/eip191.ts";
import { Sealer } from "../../src/core/seal.ts";
import { keccak256, keccakImplementation, keccakReady } from "../../src/core/keccak.ts";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { Signer } from "../../src/core/signer.ts";
import { existsSync } from "node:fs";
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

describe("which secp256k1 implementation signs (receipts.secp256k1)", () => {
  // test/run.sh and install.sh install Debian's libsecp256k1; without it "auto" falls back to noble.
  let nativeLoads = false;
  try {
    nativeLoads = useSecp256k1("auto").startsWith("libsecp256k1");
  } catch {
    nativeLoads = false;
  }
  if (!nativeLoads) console.warn("libsecp256k1 is not installed (apt-get install libsecp256k1-1): its tests are skipped");

  test.skipIf(!nativeLoads)("libsecp256k1 and noble sign byte for byte alike (RFC 6979, low s), and viem agrees", async () => {
    const messages = Array.from({ length: 200 }, (_, i) => `receipt ${i} ${"x".repeat(i)}`);
    const keys = Array.from({ length: 20 }, () => generateSecretKey());
    useSecp256k1("auto");
    expect(nativeSecp256k1()).toBe(true);
    const native = messages.map((m, i) => signMessage(keys[i % keys.length]!, m));
    useSecp256k1("js");
    expect(nativeSecp256k1()).toBe(false);
    const js = messages.map((m, i) => signMessage(keys[i % keys.length]!, m));
    useSecp256k1("auto");
    expect(native).toEqual(js);
    const account = privateKeyToAccount(`0x${bytesToHex(keys[0]!)}`);
    expect(native[0]).toBe(await account.signMessage({ message: messages[0]! }));
    for (const i of [0, 57, 199]) expect(recoverMessageAddress(messages[i]!, native[i]!)).toBe(addressOfSecretKey(keys[i % keys.length]!));
  });

  test.skipIf(!nativeLoads)("recovering the signer: the same address, or the same refusal, from both — valid, high-s, malformed and out-of-range signatures", () => {
    const n = BigInt("0xfffffffffffffffffffffffffffffffebaae6af48a03bbfd25e8cd0364141");
    const cases: [string, string][] = [];
    for (let i = 0; i < 60; i++) {
      const message = `statement ${i}`;
      const signature = signMessage(generateSecretKey(), message);
      cases.push([message, signature]);
      // The same signature with s mirrored to the high half (and the recovery id flipped): Ethereum's ecrecover takes it.
      const s = BigInt("0x" + signature.slice(66, 130));
      const v = signature.slice(130) === "1b" ? "1c" : "1b";
      cases.push([message, signature.slice(0, 66) + (n - s).toString(16).padStart(64, "0") + v]);
      cases.push([message, "0x" + bytesToHex(crypto.getRandomValues(new Uint8Array(64))) + (i % 2 ? "1b" : "1c")]);
    }
    cases.push(["m", "0x" + "00".repeat(64) + "1b"], ["m", "0x" + "ff".repeat(64) + "1c"], ["m", "0x" + n.toString(16).padStart(64, "0") + "01".padStart(64, "0") + "1b"]);
    const outcome = (message: string, signature: string) => {
      try {
        return recoverMessageAddress(message, signature);
      } catch {
        return "refused";
      }
    };
    useSecp256k1("auto");
    const native = cases.map(([m, sig]) => outcome(m, sig));
    useSecp256k1("js");
    const js = cases.map(([m, sig]) => outcome(m, sig));
    useSecp256k1("auto");
    expect(native).toEqual(js);
    expect(native.filter((r) => r === "refused").length).toBeGreaterThanOrEqual(3);
    expect(native[0]).not.toBe("refused");
  });

  test.skipIf(!nativeLoads)("a library named by its path is used; the implementation says where it came from", () => {
    const found = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
      .flatMap((dir) => ["libsecp256k1.so.2", "libsecp256k1.so.1"].map((f) => join(dir, f)))
      .find((p) => existsSync(p))!;
    expect(useSecp256k1(found)).toBe(`libsecp256k1 (${found})`);
    useSecp256k1("auto");
  });

  test('"js" always signs with noble; a path that is not a usable library is refused with the reason', () => {
    expect(useSecp256k1("js")).toBe("@noble/secp256k1 (JavaScript)");
    expect(() => useSecp256k1("/nonexistent/libsecp256k1.so")).toThrow(/receipts\.secp256k1 = "\/nonexistent\/libsecp256k1\.so" cannot be used: .*nonexistent/);
    // A shared library that is not libsecp256k1 (no such symbols).
    const other = ["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/aarch64-linux-gnu/libz.so.1"].find((p) => existsSync(p));
    if (other) expect(() => useSecp256k1(other)).toThrow(/cannot be used/);
    useSecp256k1("auto");
  });
});

describe("keccak-256 (core/keccak.ts)", () => {
  test("the WebAssembly keccak hashes as noble's does, for every length around the rate", async () => {
    await keccakReady;
    expect(keccakImplementation()).toBe("hash-wasm");
    for (let n = 0; n < 300; n += 7) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 31 + n) & 255);
      expect(Buffer.from(keccak256(bytes)).toString("hex")).toBe(Buffer.from(keccak_256(bytes)).toString("hex"));
    }
  });
});

import { describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SealError, Sealer } from "../../src/core/seal.ts";
import { tempDir } from "../support/harness.ts";

describe("seal (AES-256-GCM at rest)", () => {
  const sealer = new Sealer([Sealer.generateKey()]);

  test("round-trips text and bytes, with a fresh nonce every time", () => {
    const a = sealer.seal("secret value", "state:acct_1:k");
    const b = sealer.seal("secret value", "state:acct_1:k");
    expect(a).not.toBe(b);
    expect(a.startsWith(`v1.${sealer.keyId}.`)).toBe(true);
    expect(a).not.toContain("secret");
    expect(sealer.openText(a, "state:acct_1:k")).toBe("secret value");
    const bytes = new Uint8Array([0, 1, 2, 255]);
    expect(new Uint8Array(sealer.open(sealer.seal(bytes, "x"), "x"))).toEqual(bytes);
  });

  test("refuses another record's AAD, tampering, truncation and unknown keys", () => {
    const sealed = sealer.seal("v", "state:acct_1:k");
    expect(() => sealer.open(sealed, "state:acct_2:k")).toThrow(SealError);
    const raw = Buffer.from(sealed.split(".")[2]!, "base64url");
    raw[raw.length - 20]! ^= 1;
    expect(() => sealer.open(`v1.${sealer.keyId}.${raw.toString("base64url")}`, "state:acct_1:k")).toThrow(/authentication/);
    expect(() => sealer.open(`v1.${sealer.keyId}.AAAA`, "x")).toThrow(/truncated/);
    expect(() => sealer.open("v1.deadbeef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "x")).toThrow(/unknown master key/);
    expect(() => sealer.open("plaintext", "x")).toThrow(/not a sealed value/);
  });

  test("a rotated key file (newest first) still opens older values", () => {
    const oldKey = Sealer.generateKey();
    const old = new Sealer([oldKey]).seal("kept", "aad");
    const rotated = new Sealer([Sealer.generateKey(), oldKey]);
    expect(rotated.openText(old, "aad")).toBe("kept");
    expect(rotated.seal("new", "aad").split(".")[1]).toBe(rotated.keyId);
  });

  test("the master key file is created 0600, once, and never overwritten", () => {
    const path = join(tempDir(), "master.key");
    expect(Sealer.createKeyFile(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const first = Sealer.fromKeyFile(path).keyId;
    expect(Sealer.createKeyFile(path)).toBe(false);
    expect(Sealer.fromKeyFile(path).keyId).toBe(first);
    expect(Sealer.keyFileTooOpen(path)).toBe(false);
    const bad = join(tempDir(), "bad.key");
    writeFileSync(bad, "not hex\n");
    expect(() => Sealer.fromKeyFile(bad)).toThrow(/malformed/);
    expect(() => Sealer.fromKeyFile(join(tempDir(), "missing.key"))).toThrow(/svc setup/);
  });

  test("derived keys differ by purpose and from each other's deployments", () => {
    expect(sealer.deriveKey("cursor").equals(sealer.deriveKey("cursor"))).toBe(true);
    expect(sealer.deriveKey("cursor").equals(sealer.deriveKey("other"))).toBe(false);
    expect(new Sealer([Sealer.generateKey()]).deriveKey("cursor").equals(sealer.deriveKey("cursor"))).toBe(false);
  });
});

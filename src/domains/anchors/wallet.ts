/**
 * The anchor wallet: a secp256k1 key of its own (not the receipt signer), sealed at rest under
 * the master key in <data dir>/anchor.key, that pays for and sends the evm anchor
 * transactions. A separate key keeps gas money away from the key whose signatures make
 * receipts valid: leaking or draining one does not touch the other.
 *
 * Created only by the operator (`svc anchors evm-key`), who then funds its address.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Config } from "../../config.ts";
import { addressOfSecretKey, generateSecretKey } from "../../core/eip191.ts";
import type { Sealer } from "../../core/seal.ts";

/** Binds the sealed value to its purpose: a sealed signer key copied here does not open. */
const AAD = "svc/anchor-wallet-key";

export interface AnchorWallet {
  address: string;
  secretKey: Uint8Array;
}

export const anchorKeyPath = (config: Pick<Config, "data_dir">): string => join(config.data_dir, "anchor.key");

/** Creates the sealed key file (0600) unless it exists; either way answers with the wallet's address. */
export function createAnchorWallet(config: Pick<Config, "data_dir">, sealer: Sealer): { address: string; created: boolean } {
  const path = anchorKeyPath(config);
  if (existsSync(path)) return { address: loadAnchorWallet(config, sealer)!.address, created: false };
  const secretKey = generateSecretKey();
  writeFileSync(path, sealer.seal(bytesToHex(secretKey), AAD) + "\n", { mode: 0o600, flag: "wx" });
  return { address: addressOfSecretKey(secretKey), created: true };
}

/** The wallet, or null when the operator has not created it. */
export function loadAnchorWallet(config: Pick<Config, "data_dir">, sealer: Sealer): AnchorWallet | null {
  const path = anchorKeyPath(config);
  if (!existsSync(path)) return null;
  const secretKey = hexToBytes(sealer.openText(readFileSync(path, "utf8").trim(), AAD));
  return { address: addressOfSecretKey(secretKey), secretKey };
}

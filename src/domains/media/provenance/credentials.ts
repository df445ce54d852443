/**
 * The C2PA signing credential: an X.509 chain and its private key, in <data_dir>/provenance/.
 *
 *   chain.pem    the signer's certificate first, then its issuers (published at
 *                GET /.well-known/c2pa/chain.pem)
 *   anchors.pem  the roots svc's own verify route treats as trusted (the generated root, or
 *                the operator's)
 *   signer.key   the private key (PKCS#8), sealed with the master key
 *
 * Generated on first need (svc setup, or the first signed asset): an ES256 root ("svc provenance
 * root", 10 years) and a signer certificate it issues (5 years) that meets the C2PA certificate
 * profile (v3, digitalSignature key usage, emailProtection extended key usage, not a CA, key
 * identifiers). An operator replaces both with `svc media cert import` (ES256 or Ed25519, the
 * two C2PA algorithms svc signs with). Receipts keep their own secp256k1 key: C2PA does not
 * allow that curve.
 */
// The polyfill first: the X.509 library's dependency injection needs it at import.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sealer } from "../../../core/seal.ts";
import type { ClaimSigner, CoseAlg } from "./cose.ts";

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const subtle = webcrypto.subtle;
const KEY_AAD = "provenance:signer.key";
const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export interface ProvenanceCredential {
  signer: ClaimSigner;
  /** PEM, signer first. */
  chainPem: string;
  anchorsPem: string;
  /** The signer certificate's subject and SHA-256 fingerprint (hex). */
  subject: string;
  fingerprint: string;
  notAfter: string;
}

export const credentialFiles = (dir: string) => ({ chain: join(dir, "chain.pem"), anchors: join(dir, "anchors.pem"), key: join(dir, "signer.key") });

function writeAtomic(path: string, text: string, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

const pem = (certs: x509.X509Certificate[]) => certs.map((c) => c.toString("pem")).join("\n") + "\n";

/** Creates the generated chain when none exists; true when it did. */
export async function ensureCredential(dir: string, sealer: Sealer): Promise<boolean> {
  const files = credentialFiles(dir);
  if (existsSync(files.chain) && existsSync(files.key)) return false;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const rootKeys = (await subtle.generateKey(ES256, true, ["sign", "verify"])) as CryptoKeyPair;
  const leafKeys = (await subtle.generateKey(ES256, true, ["sign", "verify"])) as CryptoKeyPair;
  const from = new Date(Date.now() - 60 * 60_000);
  const years = (n: number) => new Date(from.getTime() + n * 365 * 86_400_000);
  const serial = () => Buffer.from(webcrypto.getRandomValues(new Uint8Array(12))).toString("hex").replace(/^[89a-f]/, "1");
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: "CN=svc provenance root, O=svc",
    notBefore: from,
    notAfter: years(10),
    signingAlgorithm: ES256,
    keys: rootKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: "CN=svc provenance signer, O=svc",
    issuer: root.subject,
    notBefore: from,
    notAfter: years(5),
    signingAlgorithm: ES256,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection], false),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(root, false),
    ],
  });
  const pkcs8 = new Uint8Array(await subtle.exportKey("pkcs8", leafKeys.privateKey));
  writeAtomic(files.key, sealer.seal(pkcs8, KEY_AAD) + "\n", 0o600);
  writeAtomic(files.anchors, pem([root]), 0o644);
  writeAtomic(files.chain, pem([leaf, root]), 0o644);
  return true;
}

function parseChain(text: string): x509.X509Certificate[] {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new x509.X509Certificate(b));
}

function algOf(cert: x509.X509Certificate): CoseAlg {
  const alg = cert.publicKey.algorithm as { name: string; namedCurve?: string };
  if (alg.name === "ECDSA" && alg.namedCurve === "P-256") return "es256";
  if (alg.name === "Ed25519") return "ed25519";
  throw new Error(`the signer certificate's key is ${alg.name}${alg.namedCurve ? ` ${alg.namedCurve}` : ""}; svc signs C2PA manifests with ES256 (EC P-256) or Ed25519`);
}

const importParams = (alg: CoseAlg) => (alg === "es256" ? { name: "ECDSA", namedCurve: "P-256" } : { name: "Ed25519" });
const signParams = (alg: CoseAlg) => (alg === "es256" ? { name: "ECDSA", hash: "SHA-256" } : { name: "Ed25519" });

async function credentialOf(chain: x509.X509Certificate[], anchorsPem: string, pkcs8: Uint8Array): Promise<ProvenanceCredential> {
  const leaf = chain[0]!;
  const alg = algOf(leaf);
  const key = await subtle.importKey("pkcs8", pkcs8 as Uint8Array<ArrayBuffer>, importParams(alg), false, ["sign"]);
  const signer: ClaimSigner = {
    alg,
    chain: chain.map((c) => new Uint8Array(c.rawData)),
    sign: async (bytes) => new Uint8Array(await subtle.sign(signParams(alg), key, bytes as Uint8Array<ArrayBuffer>)),
  };
  // The key must be the certificate's: a probe signature checks it once, here, not in every asset.
  const probe = new TextEncoder().encode("svc provenance key check");
  const publicKey = await leaf.publicKey.export(importParams(alg), ["verify"]);
  if (!(await subtle.verify(signParams(alg), publicKey, (await signer.sign(probe)) as Uint8Array<ArrayBuffer>, probe))) throw new Error("the private key does not belong to the signer certificate (the chain's first)");
  return {
    signer,
    chainPem: pem(chain),
    anchorsPem,
    subject: leaf.subject,
    fingerprint: Buffer.from(await leaf.getThumbprint("SHA-256")).toString("hex"),
    notAfter: leaf.notAfter.toISOString(),
  };
}

/** The credential in `dir` (ensureCredential first). */
export async function loadCredential(dir: string, sealer: Sealer): Promise<ProvenanceCredential> {
  const files = credentialFiles(dir);
  const chain = parseChain(readFileSync(files.chain, "utf8"));
  if (!chain.length) throw new Error(`${files.chain} holds no certificate`);
  const anchors = existsSync(files.anchors) ? readFileSync(files.anchors, "utf8") : pem(chain.slice(-1));
  const pkcs8 = sealer.open(readFileSync(files.key, "utf8").trim(), KEY_AAD);
  return credentialOf(chain, anchors, new Uint8Array(pkcs8));
}

/**
 * Replaces the credential with the operator's: a PEM chain (signer first), its PKCS#8 PEM
 * private key, and optionally the root(s) to trust (default: the chain's last certificate).
 * Checked before anything is written: algorithm, key ownership. Returns the new credential.
 */
export async function importCredential(dir: string, sealer: Sealer, input: { chainPem: string; keyPem: string; anchorsPem?: string }): Promise<ProvenanceCredential> {
  const chain = parseChain(input.chainPem);
  if (!chain.length) throw new Error("the chain file holds no PEM certificate");
  const body = input.keyPem.match(/-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/);
  if (!body) throw new Error("the key file must hold a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)");
  const pkcs8 = new Uint8Array(Buffer.from(body[1]!.replace(/\s+/g, ""), "base64"));
  const anchors = input.anchorsPem ? pem(parseChain(input.anchorsPem)) : pem(chain.slice(-1));
  const credential = await credentialOf(chain, anchors, pkcs8);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = credentialFiles(dir);
  writeAtomic(files.key, sealer.seal(pkcs8, KEY_AAD) + "\n", 0o600);
  writeAtomic(files.anchors, anchors, 0o644);
  writeAtomic(files.chain, credential.chainPem, 0o644);
  return credential;
}

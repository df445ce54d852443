/**
 * POST /v1/images/verify (alias /v1/videos/verify): the three answers decided independently on
 * an original, a stripped and an edited asset; the receipt route for a stripped asset; the
 * well-known chain; bad input; the per-address limit.
 */
import { describe, expect, test } from "bun:test";
import { createHash, X509Certificate } from "node:crypto";
import { FIXTURE } from "../../support/upstream-media.ts";
import { operatorChain, startMediaGateway } from "./media-support.ts";

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** A PNG without its C2PA chunk (caBX): what an upload pipeline that drops metadata leaves. */
function stripPng(png: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [png.subarray(0, 8)];
  for (let at = 8; at < png.length; ) {
    const len = new DataView(png.buffer, png.byteOffset + at).getUint32(0);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const end = at + 12 + len;
    if (type !== "caBX") parts.push(png.subarray(at, end));
    at = end;
  }
  return new Uint8Array(Buffer.concat(parts));
}

async function generated(g: Awaited<ReturnType<typeof startMediaGateway>>) {
  const r = await g.h.request("POST", "/v1/images/generations", { headers: { authorization: `Bearer ${g.key}` }, body: { model: "img-test", prompt: "a harbour" } });
  const body = (await r.json()) as any;
  return { bytes: new Uint8Array(Buffer.from(body.data[0].b64_json, "base64")), receipt: r.headers.get("x-svc-receipt")!, signature: r.headers.get("x-svc-receipt-signature")!, receiptId: r.headers.get("x-svc-receipt-id")! };
}

const verify = (g: Awaited<ReturnType<typeof startMediaGateway>>, body: unknown, path = "/v1/images/verify") => g.h.json("POST", path, { body });

describe("the three answers", () => {
  test("original: found, valid, matching, trusted, with signer and receipt id; the video alias answers the same", async () => {
    const g = await startMediaGateway();
    const { bytes, receiptId } = await generated(g);
    const asset_b64 = Buffer.from(bytes).toString("base64");
    const r = await verify(g, { asset_b64 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ manifest_found: true, signature_valid: true, hash_matches: true, source: "c2pa", trusted: true, receipt_id: receiptId, model: "img-test", asset_sha256: sha256(bytes), failures: [] });
    expect(r.body.signer).toMatchObject({ subject: "svc provenance signer", alg: "Es256" });
    expect((await verify(g, { asset_b64 }, "/v1/videos/verify")).body).toEqual(r.body);
  });

  test("stripped: no manifest found, so nothing else holds", async () => {
    const g = await startMediaGateway();
    const { bytes } = await generated(g);
    const stripped = stripPng(bytes);
    expect(stripped.length).toBeLessThan(bytes.length);
    const r = await verify(g, { asset_b64: Buffer.from(stripped).toString("base64") });
    expect(r.body).toMatchObject({ manifest_found: false, signature_valid: false, hash_matches: false, source: null, asset_sha256: sha256(stripped) });
  });

  test("edited: the signature still verifies, the hash no longer matches", async () => {
    const g = await startMediaGateway();
    const { bytes } = await generated(g);
    const edited = bytes.slice();
    edited[edited.length - 20]! ^= 0x01;
    const r = await verify(g, { asset_b64: Buffer.from(edited).toString("base64") });
    expect(r.body).toMatchObject({ manifest_found: true, signature_valid: true, hash_matches: false, source: "c2pa" });
    expect(r.body.failures).toContain("assertion.dataHash.mismatch");
  });

  test("an asset svc never signed: not found", async () => {
    const g = await startMediaGateway();
    const r = await verify(g, { asset_b64: Buffer.from(FIXTURE.mp4).toString("base64") });
    expect(r.body).toMatchObject({ manifest_found: false, signature_valid: false, hash_matches: false });
  });
});

describe("the receipt route (manifest + signature)", () => {
  test("a stripped asset still checks against the receipt kept from the response; another asset does not match; a forged signature is not valid", async () => {
    const g = await startMediaGateway();
    const { bytes, receipt, signature, receiptId } = await generated(g);
    const asset_b64 = Buffer.from(bytes).toString("base64");
    const ok = await verify(g, { asset_b64, manifest: receipt, signature });
    expect(ok.body).toMatchObject({ manifest_found: true, signature_valid: true, hash_matches: true, source: "receipt", trusted: true, receipt_id: receiptId, model: "img-test" });
    expect(ok.body.signer.address.toLowerCase()).toBe(g.h.ctx.signer.address.toLowerCase());

    const other = await verify(g, { asset_b64: Buffer.from(FIXTURE.png).toString("base64"), manifest: receipt, signature });
    expect(other.body).toMatchObject({ manifest_found: true, signature_valid: true, hash_matches: false });

    const forged = `${signature.slice(0, -6)}${signature.slice(-6, -2) === "0000" ? "1111" : "0000"}${signature.slice(-2)}`;
    const bad = await verify(g, { asset_b64, manifest: receipt, signature: forged });
    expect(bad.body.signature_valid).toBe(false);
    expect(bad.body.hash_matches).toBe(true);
  });
});

describe("the signing chain", () => {
  test("GET /.well-known/c2pa/chain.pem: the signer certificate (C2PA profile) then its root", async () => {
    const g = await startMediaGateway();
    const r = await g.h.request("GET", "/.well-known/c2pa/chain.pem");
    expect(r.status).toBe(200);
    const pem = await r.text();
    const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!.map((c) => new X509Certificate(c));
    expect(certs).toHaveLength(2);
    expect(certs[0]!.subject).toContain("CN=svc provenance signer");
    expect(certs[0]!.ca).toBe(false);
    expect(certs[0]!.checkIssued(certs[1]!)).toBe(true);
    expect(certs[1]!.ca).toBe(true);
    expect(certs[0]!.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
  });
});

describe("bad input and the limit", () => {
  const bad: [string, Record<string, unknown>, number, string][] = [
    ["nothing to check", {}, 400, "asset_b64"],
    ["manifest without signature", { manifest: "abc" }, 400, "signature"],
    ["asset that is not base64", { asset_b64: "!!!" }, 400, "asset_b64"],
    ["an unknown field", { asset: "x" }, 400, "asset"],
  ];
  for (const [name, body, status, mention] of bad) {
    test(name, async () => {
      const g = await startMediaGateway();
      const r = await verify(g, body);
      expect(r.status).toBe(status);
      expect(JSON.stringify(r.body)).toContain(mention);
    });
  }

  test("an asset larger than media.verify_max_bytes: 413", async () => {
    const g = await startMediaGateway({ harness: { config: (c) => (c.media.verify_max_bytes = 1024) } });
    const r = await verify(g, { asset_b64: Buffer.alloc(4096).toString("base64") });
    expect(r.status).toBe(413);
  });

  test("per-address limit: 429 with Retry-After once the bucket is empty", async () => {
    const g = await startMediaGateway({ harness: { config: (c) => (c.media.verify_per_ip_per_minute = 2) } });
    const body = { asset_b64: Buffer.from(FIXTURE.png).toString("base64") };
    expect((await verify(g, body)).status).toBe(200);
    expect((await verify(g, body)).status).toBe(200);
    const r = await verify(g, body);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBeTruthy();
    g.h.clock.advance(60_000);
    expect((await verify(g, body)).status).toBe(200);
  });
});

describe("an operator's own chain", () => {
  test("after svc media cert import, images are signed by it and the verify route trusts its anchors", async () => {
    const { importCredential } = await import("../../../src/domains/media/provenance/credentials.ts");
    const { forgetProvenanceCredential } = await import("../../../src/domains/media/signing.ts");
    const g = await startMediaGateway();
    const own = await operatorChain();
    await importCredential(g.h.ctx.paths.provenance, g.h.ctx.sealer, { chainPem: own.chain, keyPem: own.key });
    forgetProvenanceCredential(g.h.ctx);
    const { bytes } = await generated(g);
    const r = await verify(g, { asset_b64: Buffer.from(bytes).toString("base64") });
    expect(r.body).toMatchObject({ manifest_found: true, signature_valid: true, hash_matches: true, trusted: true, signer: { subject: "Acme media signer", issuer: "Acme" } });
    expect(await (await g.h.request("GET", "/.well-known/c2pa/chain.pem")).text()).toContain(own.chain.split("\n")[1]!);
  });
});

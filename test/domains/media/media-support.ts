/**
 * A gateway with the default chat catalogue plus a stand-in media provider (test/support/
 * upstream-media.ts): an image model and a video model with round prices; an operator's own
 * C2PA chain for the import tests.
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { type Gateway, type GatewayOptions, startGateway, UPSTREAM_KEY, withModels } from "../inference/inference-support.ts";
import { type MediaUpstream, startMediaUpstream } from "../../support/upstream-media.ts";
import { onCleanup } from "../../support/cleanup.ts";

export const IMAGE_PRICE = 40_000;
export const VIDEO_PRICE_PER_SECOND = 100_000;
export const VIDEO_DURATIONS = [4, 8, 12];

export interface MediaGateway extends Gateway {
  media: MediaUpstream;
}

export async function startMediaGateway(options: GatewayOptions = {}): Promise<MediaGateway> {
  const media = startMediaUpstream({ apiKey: UPSTREAM_KEY });
  onCleanup(() => media.stop());
  const g = await startGateway({
    ...options,
    catalog: (stub) => {
      const base = withModels([
        { id: "img-test", provider: "img", upstream: "stand-in-image", type: "image", price_micro_usd_per_image: IMAGE_PRICE, sizes: ["1024x1024", "512x512"], aspect_ratios: ["1:1"], max_images: 4, input_micro_usd_per_mtok: undefined, output_micro_usd_per_mtok: undefined, max_output: undefined },
        {
          id: "vid-test",
          provider: "vid",
          upstream: "stand-in-video",
          type: "video",
          price_micro_usd_per_second: VIDEO_PRICE_PER_SECOND,
          durations: VIDEO_DURATIONS,
          sizes: ["1280x720", "720x1280"],
          aspect_ratios: ["16:9", "9:16"],
          input_micro_usd_per_mtok: undefined,
          output_micro_usd_per_mtok: undefined,
          max_output: undefined,
        },
      ])(stub);
      return {
        providers: [
          ...base.providers,
          { name: "img", kind: "openai-images", base_url: media.baseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY" },
          { name: "vid", kind: "openai-videos", base_url: media.baseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY" },
        ],
        models: base.models,
      };
    },
  });
  return Object.assign(g, { media });
}

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** An operator's own chain: "Acme media root" issuing "Acme media signer", PEM. */
export async function operatorChain(): Promise<{ chain: string; key: string; otherKey: string }> {
  x509.cryptoProvider.set(crypto);
  const rootKeys = (await crypto.subtle.generateKey(ES256, true, ["sign", "verify"])) as CryptoKeyPair;
  const leafKeys = (await crypto.subtle.generateKey(ES256, true, ["sign", "verify"])) as CryptoKeyPair;
  const other = (await crypto.subtle.generateKey(ES256, true, ["sign", "verify"])) as CryptoKeyPair;
  const from = new Date(Date.now() - 3_600_000);
  const to = new Date(Date.now() + 365 * 86_400_000);
  const root = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: "0a", name: "CN=Acme media root, O=Acme", notBefore: from, notAfter: to, signingAlgorithm: ES256, keys: rootKeys, extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)] });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "0b",
    subject: "CN=Acme media signer, O=Acme",
    issuer: root.subject,
    notBefore: from,
    notAfter: to,
    signingAlgorithm: ES256,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [new x509.BasicConstraintsExtension(false, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true), new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]), await x509.AuthorityKeyIdentifierExtension.create(root)],
  });
  const pkcs8 = async (k: CryptoKey) => `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await crypto.subtle.exportKey("pkcs8", k)).toString("base64")}\n-----END PRIVATE KEY-----\n`;
  return { chain: `${leaf.toString("pem")}\n${root.toString("pem")}\n`, key: await pkcs8(leafKeys.privateKey), otherKey: await pkcs8(other.privateKey) };
}


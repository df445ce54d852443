/**
 * Webhook secrets and signatures (spec §6 rule 1). The secret (whsec_…) is shown once, at
 * creation. Unlike bearer tokens it cannot be stored as a hash: every delivery computes an
 * HMAC with it. So it is sealed with the master key, the AAD bound to the webhook id (a sealed
 * secret copied onto another webhook's row does not open).
 *
 *   X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw request body, keyed with the whole secret string>
 */
import { createHmac } from "node:crypto";
import { newSecret } from "../../core/secrets.ts";
import type { Sealer } from "../../core/seal.ts";

export const SECRET_PREFIX = "whsec";

export const newWebhookSecret = (): string => newSecret(SECRET_PREFIX);

const aad = (webhookId: string) => `webhook:${webhookId}:secret`;

export const sealSecret = (sealer: Sealer, webhookId: string, secret: string): string => sealer.seal(secret, aad(webhookId));

export const openSecret = (sealer: Sealer, webhookId: string, sealed: string): string => sealer.openText(sealed, aad(webhookId));

/** The X-Svc-Signature value for a body. The key is the secret's UTF-8 bytes, prefix included. */
export function signBody(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

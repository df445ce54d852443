/**
 * The provenance check and the signing chain (public):
 *
 *   POST /v1/images/verify            {asset_b64?, manifest?, signature?} → three independent booleans
 *   POST /v1/videos/verify            the same check (alias)
 *   GET  /.well-known/c2pa/chain.pem  the C2PA signing certificate chain, signer first
 *
 * Rate limited per client address (media.verify_per_ip_per_minute). Rules: verify.ts.
 */
import { Elysia } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { provenanceCredential } from "./signing.ts";
import { verifyLimiter, verifyProvenance } from "./verify.ts";

const tags = ["media"];

export function provenanceRoutes(ctx: Context) {
  const limiter = verifyLimiter(ctx);
  const check = {
    body: M.VerifyBody,
    response: { 200: M.VerifyResult, ...errors(400, 413, 429) },
  };
  const description =
    "manifest_found, signature_valid and hash_matches are decided independently: a stripped asset has no manifest; an edited one keeps a valid signature whose hash no longer matches. With `manifest` (a svc receipt) and `signature`, the receipt is checked instead and the asset's sha256 must be one it binds. See docs/media.md.";
  return new Elysia()
    .use(guards.public(ctx))
    .post("/v1/images/verify", ({ body, principal }) => verifyProvenance(ctx, limiter, body, principal.client), {
      ...check,
      detail: { summary: "Check an asset's signed provenance: manifest_found, signature_valid, hash_matches", description, tags },
    })
    .post("/v1/videos/verify", ({ body, principal }) => verifyProvenance(ctx, limiter, body, principal.client), {
      ...check,
      detail: { summary: "Check a video's signed provenance (alias of POST /v1/images/verify)", description, tags },
    })
    .get(
      "/.well-known/c2pa/chain.pem",
      async () => new Response((await provenanceCredential(ctx)).chainPem, { headers: { "content-type": "application/x-pem-file", "cache-control": "public, max-age=3600" } }),
      { detail: { summary: "The C2PA signing certificate chain (PEM, signer first) that svc's media manifests carry", tags, responses: M.ChainResponses } },
    );
}

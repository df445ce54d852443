/** GET /v1/attestation (public, spec §4.1): the live attestation of the confidential tier's backends (attest.ts; docs/confidential.md). */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { currentAttestation } from "./attest.ts";
import * as M from "./models.ts";

export function attestationRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1" })
    .use(guards.public(ctx))
    .get("/attestation", () => currentAttestation(ctx), {
      response: { 200: M.Attestation },
      detail: {
        summary: "Live verified attestation of the confidential tier's backends, or verified:false with a sanitised error",
        description: `Each configured backend's attestation document is fetched with a fresh nonce and verified (signature, nonce, measurement allowlist, issue time). One verification answers for confidential.max_age_secs. Signed (EIP-191). See docs/confidential.md.`,
        tags: ["status"],
      },
    });
}

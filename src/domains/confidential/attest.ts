/**
 * The live attestation of the confidential tier's backends: each configured backend's document
 * fetched with a fresh nonce and checked by its kind's verifier, all of them at once; the whole
 * answer signed (EIP-191) so a client can keep what svc said and when. One verification answers
 * for confidential.max_age_secs, and concurrent requests share the one in flight, so a public
 * route never turns each visitor into a round of fetches on the backends.
 */
import { randomBytes } from "node:crypto";
import { isoTime } from "../../core/clock.ts";
import { sha256Hex } from "../../core/secrets.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import type { ConfidentialBackend } from "./config.ts";
import { AttestationFailure } from "./verifier.ts";
import { VERIFIERS } from "./verifiers.ts";

export const NOT_CONFIGURED = "no confidential backend is configured";

export interface BackendAttestation {
  name: string;
  kind: string;
  provider: string | null;
  verified: boolean;
  measurement: string | null;
  issued_at: string | null;
  nonce: string;
  document_sha256: string | null;
  document_b64: string | null;
  error: string | null;
}

export interface Attestation {
  verified: boolean;
  error: string | null;
  checked_at: string;
  backends: BackendAttestation[];
  statement: string;
  signature: string;
  signer: string;
}

interface Held {
  at: number;
  answer: Attestation;
}

export interface ConfidentialState {
  last: Held | null;
  inflight: Promise<Attestation> | null;
}

declare module "../../context.ts" {
  interface Context {
    /** The last verification of the confidential backends and the one in flight (set by the confidential module's wire). */
    confidential: ConfidentialState;
  }
}

export const newConfidentialState = (): ConfidentialState => ({ last: null, inflight: null });

async function attestBackend(ctx: Context, backend: ConfidentialBackend, now: number): Promise<BackendAttestation> {
  const nonce = randomBytes(32).toString("hex");
  const base = { name: backend.name, kind: backend.kind, provider: backend.provider ?? null, nonce };
  try {
    const evidence = await VERIFIERS[backend.kind].attest(backend, { nonce, now, timeoutMs: ctx.config.confidential.timeout_ms });
    return {
      ...base,
      verified: true,
      measurement: evidence.measurement,
      issued_at: isoTime(evidence.issuedAt),
      document_sha256: sha256Hex(evidence.document),
      document_b64: Buffer.from(evidence.document).toString("base64"),
      error: null,
    };
  } catch (err) {
    // A verifier's own failure is safe to show; anything else is a bug, logged here and never passed on.
    if (!(err instanceof AttestationFailure)) ctx.log.error("confidential attestation failed unexpectedly", { backend: backend.name, error: err instanceof Error ? err.message : String(err) });
    const error = err instanceof AttestationFailure ? err.message : "verification failed unexpectedly";
    return { ...base, verified: false, measurement: null, issued_at: null, document_sha256: null, document_b64: null, error };
  }
}

function summary(backends: BackendAttestation[]): string | null {
  if (backends.length === 0) return NOT_CONFIGURED;
  const failed = backends.filter((b) => !b.verified);
  if (failed.length === 0) return null;
  return `${failed.length} of ${backends.length} confidential backends failed attestation: ${failed.map((b) => `${b.name}: ${b.error}`).join("; ")}`;
}

/** Verifies every configured backend now, signs the answer and keeps it. */
export async function verifyNow(ctx: Context): Promise<Attestation> {
  const now = ctx.clock.now();
  const backends = await Promise.all(ctx.config.confidential.backends.map((b) => attestBackend(ctx, b, now)));
  const error = summary(backends);
  const checkedAt = isoTime(now);
  const signed = signStatement(ctx.signer, {
    v: 1,
    type: "confidential-attestation",
    verified: error === null,
    error,
    checked_at: checkedAt,
    backends: backends.map(({ document_b64: _bytes, ...rest }) => rest),
  });
  const answer: Attestation = { verified: error === null, error, checked_at: checkedAt, backends, ...signed };
  ctx.confidential.last = { at: now, answer };
  return answer;
}

/** GET /v1/attestation: the held verification while it is younger than max_age_secs, otherwise a new one (shared by concurrent callers). */
export function currentAttestation(ctx: Context): Promise<Attestation> {
  const state = ctx.confidential;
  const last = state.last;
  if (last && ctx.clock.now() - last.at < ctx.config.confidential.max_age_secs * 1000) return Promise.resolve(last.answer);
  state.inflight ??= verifyNow(ctx).finally(() => {
    state.inflight = null;
  });
  return state.inflight;
}

/** svc serve: verify again every check_interval_secs, so the status block reports a recent verification. */
export function registerConfidentialJobs(ctx: Context): void {
  if (ctx.config.confidential.backends.length === 0) return;
  ctx.scheduler.every("confidential.attest", ctx.config.confidential.check_interval_secs * 1000, async () => {
    await verifyNow(ctx);
  });
}

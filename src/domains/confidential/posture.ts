/**
 * What other areas read of the confidential tier without dialing anything: GET /v1/status's
 * confidential block, and whether an inference provider's backend is attested, both from the
 * last verification held (attest.ts), which `svc serve` renews every check_interval_secs.
 */
import type { Context } from "../../context.ts";

export interface ConfidentialPosture {
  /** null before the first verification since the process started. */
  verified: boolean | null;
  checked_at: string | null;
  error: string | null;
  backends: { name: string; kind: string; provider: string | null; verified: boolean | null; measurement: string | null }[];
}

/** The status block, or null when no confidential backend is configured (the block is then left out). */
export function confidentialPosture(ctx: Context): ConfidentialPosture | null {
  const configured = ctx.config.confidential.backends;
  if (configured.length === 0) return null;
  const last = ctx.confidential.last?.answer ?? null;
  return {
    verified: last?.verified ?? null,
    checked_at: last?.checked_at ?? null,
    error: last?.error ?? null,
    backends: configured.map((b) => {
      const seen = last?.backends.find((x) => x.name === b.name);
      return { name: b.name, kind: b.kind, provider: b.provider ?? null, verified: seen?.verified ?? null, measurement: seen?.measurement ?? null };
    }),
  };
}

/**
 * True when every backend configured for inference provider `provider` passed the last
 * verification, and that verification is younger than two check intervals (a scheduler that
 * stopped renewing it must not leave a standing yes). False when none is configured for it.
 */
export function providerAttested(ctx: Context, provider: string): boolean {
  const backends = ctx.config.confidential.backends.filter((b) => b.provider === provider);
  const last = ctx.confidential.last;
  if (backends.length === 0 || !last || ctx.clock.now() - last.at > 2 * ctx.config.confidential.check_interval_secs * 1000) return false;
  return backends.every((b) => last.answer.backends.some((x) => x.name === b.name && x.verified));
}

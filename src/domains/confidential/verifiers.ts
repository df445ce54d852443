/** Each attestation kind's verifier: a kind listed in verifiers/kinds.ts without one here does not compile. */
import type { Verifier } from "./verifier.ts";
import type { VerifierKind } from "./verifiers/kinds.ts";
import { signedReport } from "./verifiers/signed-report.ts";

export const VERIFIERS: Record<VerifierKind, Verifier> = {
  signed_report: signedReport,
};

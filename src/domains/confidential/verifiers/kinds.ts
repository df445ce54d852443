/**
 * The attestation formats svc can verify, one verifier file per kind in this folder (the map
 * is verifiers.ts). signed_report is svc's stand-in: a report signed by a key the operator
 * trusts. A real TEE's format (NVIDIA NRAS tokens, Intel TDX or AMD SEV-SNP quotes) is a new
 * name here and a new file beside signed-report.ts; config.ts and verifiers.ts follow the list.
 */
export const VERIFIER_KINDS = ["signed_report"] as const;
export type VerifierKind = (typeof VERIFIER_KINDS)[number];

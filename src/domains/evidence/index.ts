/**
 * Evidence sources of truth: custodian endpoints, third-party attestation documents, on-chain ERC-20 supply and price sources, each retrieval fingerprinted and kept (shared by attestations, NAV, proof-of-backing and launches; docs/evidence.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 *
 * A record that draws on evidence stores a StoredSource (prepareSource: checked, secrets sealed)
 * in its own row, calls retrieve() each time it checks, and cites the EvidenceRef it gets back.
 */
export { EvidenceReference, EvidenceSourceInput, EvidenceSourceView, SOURCE_KINDS, type SourceKind } from "./models.ts";
export { openCredential, patchSource, prepareSource, sourceView, type StoredSource } from "./sources.ts";
export { type EvidenceRef, retrieve, type Retrieval } from "./retrieve.ts";
export { type EvidenceBody, evidenceBody, forgetEvidenceBodies } from "./bodies.ts";
export { atPointer, decimalText, scaledUnits, unitsAsDecimal } from "./figures.ts";

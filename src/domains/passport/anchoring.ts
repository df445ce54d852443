/**
 * Anchoring credentials through the anchors area's batch mechanism (anchors/batches.ts): a
 * recurring pass puts the credentials issued since the last one under one Merkle root (in issue
 * order) and anchors it — the same roots and anchors as receipt batches, run proofs and sealed
 * calls, shown at GET /v1/anchors/:root. A leaf is the commitment's 64 lowercase hex
 * characters, so an anchored root proves the credential existed, unchanged, when it was anchored.
 */
import type { Context } from "../../context.ts";
import { anchorPending, type LeafInclusion, leafInclusion, type LeafSource, scheduleBatchAnchoring } from "../anchors/index.ts";
import { ANCHOR_BATCH_MAX } from "./limits.ts";
import { commitmentsUnder, type CredentialRecord, setCredentialAnchor, unanchoredCredentials } from "./store.ts";

export const ANCHOR_JOB = "passport.anchor";

/** Said in every proof: svc's Merkle construction, with a passport's leaf in place of a receipt string. */
export const PASSPORT_MERKLE_ALG =
  "RFC 6962 (Certificate Transparency) Merkle tree over SHA-256: leaf = the commitment's 64 lowercase hex characters as ASCII bytes, leaf_hash = SHA-256(0x00 || leaf), " +
  "node hash = SHA-256(0x01 || left || right), split at the largest power of two smaller than the number of leaves; leaves in issue order; " +
  "siblings are the RFC 6962 §2.1.1 audit path of the leaf, nearest sibling first";

const credentials = (ctx: Context): LeafSource => ({
  pending: (limit) => unanchoredCredentials(ctx, limit).map((c) => ({ id: c.id, leaf: c.commitment })),
  place: (id, root, index) => setCredentialAnchor(ctx, id, root, index),
  leavesUnder: (root) => commitmentsUnder(ctx, root),
});

/** One root over the credentials not yet anchored (at most ANCHOR_BATCH_MAX), or null when there are none. */
export const anchorPendingCredentials = (ctx: Context): { root: string; tree_size: number } | null => anchorPending(ctx, credentials(ctx), ANCHOR_BATCH_MAX);

export function registerPassportJobs(ctx: Context): void {
  scheduleBatchAnchoring(ctx, ANCHOR_JOB, ctx.config.passport.anchor_interval_secs * 1000, credentials(ctx), ANCHOR_BATCH_MAX, "passport credentials");
}

export type CredentialAnchor = Omit<LeafInclusion, "proof"> & { siblings: string[] };

/** Where a credential stands: pending until the next pass, then its root, its audit path and the root's anchors. */
export function credentialAnchor(ctx: Context, c: CredentialRecord): CredentialAnchor {
  const { proof, ...at } = leafInclusion(ctx, credentials(ctx), c.commitment, c.anchorRoot, c.anchorIndex);
  return { ...at, siblings: proof };
}

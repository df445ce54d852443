/**
 * Merkle roots over receipts and where they are anchored (/v1/anchors/*; `svc anchors …`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { hex, recordRoot } from "./roots.ts";
/** Anchoring another area's records in batches (sealed calls, passports). */
export { anchorPending, batchState, type BatchState, type LeafInclusion, leafInclusion, type LeafSource, scheduleBatchAnchoring } from "./batches.ts";
export { anchorBlock, type AnchorBlock, anchorRoot } from "./service.ts";
export { type AnchorCounts, anchorCounts, anchoredReceiptSeq, isRootAnchored, type RecentAnchor, recentAnchors } from "./stats.ts";
export { AnchorBlock as AnchorBlockSchema } from "./models.ts";

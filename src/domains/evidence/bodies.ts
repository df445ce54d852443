/** A retrieval's kept bytes, for a record's owner (…/evidence?include_body=true). */
import type { Context } from "../../context.ts";
import { bodyAad, dropBodies, retrievalRow } from "./store.ts";

export interface EvidenceBody {
  content_type: string;
  content_sha256: string;
  bytes: Buffer;
}

/** The bytes of one of the account's retrievals; null when unknown, another account's, or already dropped. */
export function evidenceBody(ctx: Context, accountId: string, evidenceId: string): EvidenceBody | null {
  const row = retrievalRow(ctx, accountId, evidenceId);
  if (!row?.body_sealed) return null;
  return { content_type: row.content_type, content_sha256: row.content_sha256, bytes: ctx.sealer.open(row.body_sealed, bodyAad(row.id)) };
}

/** Drops the bytes of these retrievals (the references stay verifiable by their fingerprints). */
export const forgetEvidenceBodies = (ctx: Context, accountId: string, evidenceIds: string[]): void => dropBodies(ctx, accountId, evidenceIds);

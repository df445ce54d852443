/**
 * One check of a subject: retrieve the reserve (and the supply source, if any) through the
 * evidence area, compare exactly, and publish the result as a signed canonical line (line.ts).
 *
 * A source that does not answer makes the check UNAVAILABLE with no figures — never a guess,
 * never a figure carried over from an earlier check — and that check is published like any
 * other: failures are part of the record. The line is signed as it stands (EIP-191
 * personal_sign of the line's text): it contains "|", which base64url never does, so it can
 * never be mistaken for a signed statement of another kind (core/statements.ts).
 */
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { type Retrieval, retrieve } from "../evidence/index.ts";
import { backingStatus, canonicalLine, type CheckStatus } from "./line.ts";
import { type CheckRecord, insertCheck, nextSeq, setNextCheck, subjectById, type SubjectRecord, type Trigger } from "./store.ts";

interface Outcome {
  status: CheckStatus;
  reserve: string | null;
  supply: string | null;
  reason: string | null;
}

function outcomeOf(subject: SubjectRecord, reserve: Retrieval, supply: Retrieval | null): Outcome {
  const reasons: string[] = [];
  if (!reserve.ok) reasons.push(`reserve source: ${reserve.reason}`);
  else if (reserve.figure === null) reasons.push("reserve source: the answer holds no figure");
  if (supply && !supply.ok) reasons.push(`supply source: ${supply.reason}`);
  else if (supply?.ok && supply.figure === null) reasons.push("supply source: the answer holds no figure");
  if (reasons.length) return { status: "UNAVAILABLE", reserve: null, supply: null, reason: reasons.join("; ") };
  const reserveFigure = (reserve as Extract<Retrieval, { ok: true }>).figure!;
  const supplyFigure = supply ? (supply as Extract<Retrieval, { ok: true }>).figure : subject.claimedSupply;
  return { status: backingStatus(reserveFigure, supplyFigure), reserve: reserveFigure, supply: supplyFigure, reason: null };
}

/**
 * Runs and publishes one check of `subject`. Returns null, publishing nothing, when the subject
 * was retired while its sources were being read: retiring stops checks, including one in flight.
 */
export async function runCheck(ctx: Context, subject: SubjectRecord, triggeredBy: Trigger): Promise<CheckRecord | null> {
  const [reserve, supply] = await Promise.all([
    retrieve(ctx, subject.accountId, subject.reserveSource),
    subject.supplySource ? retrieve(ctx, subject.accountId, subject.supplySource) : Promise.resolve(null),
  ]);
  const outcome = outcomeOf(subject, reserve, supply);
  const evidence = { reserve: reserve.ok ? reserve.reference : null, supply: supply?.ok ? supply.reference : null };
  return ctx.tx.run(() => {
    const current = subjectById(ctx, subject.id);
    if (!current || current.status !== "active") return null;
    // seq and checked_at are both taken here, in the writing transaction, so their orders agree.
    const seq = nextSeq(ctx, subject.id);
    const checkedAt = ctx.clock.now();
    const line = canonicalLine({
      slug: current.slug,
      seq,
      checkedAt: new Date(checkedAt).toISOString(),
      status: outcome.status,
      reserve: outcome.reserve,
      supply: outcome.supply,
      reserveSha256: evidence.reserve?.content_sha256 ?? null,
      supplySha256: evidence.supply?.content_sha256 ?? null,
    });
    const check: CheckRecord = {
      subjectId: subject.id,
      seq,
      checkedAt,
      ...outcome,
      triggeredBy,
      line,
      lineSha256: sha256Hex(line),
      signature: ctx.signer.sign(line),
      signer: ctx.signer.address,
      evidence,
    };
    insertCheck(ctx, subject.accountId, check);
    // The schedule runs from the latest check, whoever asked for it.
    setNextCheck(ctx, subject.id, checkedAt + current.intervalS * 1000);
    return check;
  });
}

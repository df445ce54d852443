/**
 * What a verdict leaves behind: the content-free list and record, publishing checked against the
 * signed fingerprints, the public page, unpublishing, tenancy and the "records" scope.
 */
import { describe, expect, test } from "bun:test";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { type Gateway, verifyReceipt } from "../inference/inference-support.ts";
import { auth, judge, JURORS, sha256, startJudge, votes } from "./judge-support.ts";

const [A, B, C] = JURORS;

const QUESTION_TEXT = "SECRET-QUESTION-7f3a which draft should ship";
const CANDIDATES = ["CANDIDATE-ONE-b81c", "CANDIDATE-TWO-2d9e"];
const RUBRIC = "RUBRIC-TEXT-55aa clarity over length";
const RATIONALES = ["RATIONALE-ALPHA clearer", "RATIONALE-BETA shorter", "RATIONALE-GAMMA also clearer"];

/** A 2-1 verdict whose content is easy to look for. */
async function aVerdict(g: Gateway) {
  const question = `${QUESTION_TEXT} ${votes(A, "A", RATIONALES[0]!)} ${votes(B, "B", RATIONALES[1]!)} ${votes(C, "A", RATIONALES[2]!)}`;
  const r = await judge(g, { question, candidates: CANDIDATES, rubric: RUBRIC, jurors: [...JURORS] });
  expect(r.status).toBe(201);
  const rationales = r.body.votes.map((v: any) => v.rationale);
  return { verdict: r.body, content: { question, candidates: CANDIDATES, rubric: RUBRIC, rationales } };
}

const publish = (g: Gateway, id: string, body: unknown, key = g.key) => g.h.json("POST", `/v1/judge/verdicts/${id}/publish`, { ...auth(g, key), body });
const unpublish = (g: Gateway, id: string, key = g.key) => g.h.json("POST", `/v1/judge/verdicts/${id}/unpublish`, auth(g, key));
const publicPage = (g: Gateway, id: string) => g.h.json("GET", `/v1/judge/public/${id}`);

const CONTENT_MARKERS = ["SECRET-QUESTION", "CANDIDATE-ONE", "CANDIDATE-TWO", "RUBRIC-TEXT", "RATIONALE-"];
const expectContentFree = (value: unknown) => {
  const text = JSON.stringify(value);
  for (const marker of CONTENT_MARKERS) expect(text).not.toContain(marker);
};

describe("the stored record is content-free", () => {
  test("the list and one verdict carry votes, tally, fingerprints and receipt ids, never the content", async () => {
    const g = await startJudge();
    const first = await aVerdict(g);
    const second = await judge(g, { question: `Later ${votes(A, "no", "nope")}`, jurors: [A] });

    const list = await g.h.json("GET", "/v1/judge/verdicts", auth(g));
    expect(list.status).toBe(200);
    expect(list.body.verdicts.map((v: any) => v.id)).toEqual([second.body.id, first.verdict.id]);
    expect(Object.keys(list.body.trust_model).sort()).toEqual(["content", "fingerprints", "jurors", "publication"]);
    const listed = list.body.verdicts[1];
    expect(listed).toMatchObject({
      id: first.verdict.id,
      key_id: g.keyId,
      verdict: "A",
      choices: ["A", "B"],
      tally: { choices: { A: 2, B: 1 }, abstained: 0, failed: 0 },
      fingerprints: first.verdict.fingerprints,
      receipt_id: first.verdict.receipt.receipt_id,
      juror_receipt_ids: first.verdict.juror_receipt_ids,
      published: false,
      published_at: null,
      public_url: null,
    });
    expect(listed.votes).toEqual(first.verdict.votes.map(({ rationale: _, ...v }: any) => v));
    expectContentFree(list.body);

    const one = await g.h.json("GET", `/v1/judge/verdicts/${first.verdict.id}`, auth(g));
    expect(one.status).toBe(200);
    expect(one.body).toEqual(listed);
    expectContentFree(one.body);

    // Nor is the content anywhere in the judge's tables.
    const rows = g.h.ctx.db.query("SELECT * FROM judge_verdicts").all();
    expect(rows.length).toBe(2);
    expectContentFree(rows);
    expect(g.h.ctx.db.query("SELECT * FROM judge_publications").all()).toEqual([]);
  });

  test("?limit= takes 1-200 (default 50, above clamped); 0 or not a number is refused", async () => {
    const g = await startJudge();
    for (const q of ["a", "b", "c"]) expect((await judge(g, { question: `${q} ${votes(A, "yes", q)}`, jurors: [A] })).status).toBe(201);
    const one = await g.h.json("GET", "/v1/judge/verdicts?limit=1", auth(g));
    expect(one.body.verdicts.length).toBe(1);
    const all = await g.h.json("GET", "/v1/judge/verdicts?limit=500", auth(g));
    expect(all.body.verdicts.length).toBe(3);
    expect(one.body.verdicts[0].id).toBe(all.body.verdicts[0].id);
    for (const bad of ["0", "-1", "ten"]) {
      const r = await g.h.json("GET", `/v1/judge/verdicts?limit=${bad}`, auth(g));
      expect([bad, r.status, r.body.error.param]).toEqual([bad, 400, "limit"]);
    }
  });
});

describe("publishing", () => {
  test("the right content is stored and the public page shows it, with everything needed to check it", async () => {
    const g = await startJudge();
    const { verdict, content } = await aVerdict(g);
    expect((await publicPage(g, verdict.id)).status).toBe(404);

    const r = await publish(g, verdict.id, content);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: verdict.id, published: true, public_url: `${g.h.ctx.config.public_url}/v1/judge/public/${verdict.id}` });
    expect(r.body.published_at).toBe(new Date(g.h.clock.now()).toISOString());

    const page = await publicPage(g, verdict.id);
    expect(page.status).toBe(200);
    const p = page.body;
    expect(p).toMatchObject({ id: verdict.id, verdict: "A", question: content.question, candidates: CANDIDATES, rubric: RUBRIC, fingerprints: verdict.fingerprints, receipt: verdict.receipt });
    expect(p.votes.map((v: any) => [v.juror, v.choice, v.rationale])).toEqual([
      [A, "A", RATIONALES[0]],
      [B, "B", RATIONALES[1]],
      [C, "A", RATIONALES[2]],
    ]);
    expect(p).not.toHaveProperty("key_id");
    // A reader recomputes the fingerprints from what the page shows and finds them in the signed receipt.
    const payload = await verifyReceipt(g, p.receipt.receipt, p.receipt.signature);
    expect(payload.attestations.fingerprints).toEqual({
      question_sha256: sha256(p.question),
      candidates_sha256: sha256(JSON.stringify(p.candidates)),
      rubric_sha256: sha256(p.rubric),
      rationales_sha256: sha256(JSON.stringify(p.votes.map((v: any) => v.rationale))),
    });
    expect(payload.units.verdict).toBe(p.verdict);

    // Publishing again changes nothing: the first published_at stands.
    g.h.clock.advance(60_000);
    const again = await publish(g, verdict.id, content);
    expect(again.status).toBe(200);
    expect(again.body.published_at).toBe(r.body.published_at);
    const listed = await g.h.json("GET", "/v1/judge/verdicts", auth(g));
    expect(listed.body.verdicts[0]).toMatchObject({ published: true, published_at: r.body.published_at });
  });

  test("tampered content is refused with 422 naming the field, and nothing is stored", async () => {
    const g = await startJudge();
    const { verdict, content } = await aVerdict(g);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ...content, question: `${content.question}!` }, ["question"]],
      [{ ...content, candidates: [...CANDIDATES].reverse() }, ["candidates"]],
      [{ ...content, candidates: undefined }, ["candidates"]],
      [{ ...content, rubric: undefined }, ["rubric"]],
      [{ ...content, rationales: [content.rationales[0], "I said something else", content.rationales[2]] }, ["rationales"]],
      [{ ...content, rationales: content.rationales.slice(0, 2) }, ["rationales"]],
      [{ ...content, question: "other", rubric: "other" }, ["question", "rubric"]],
    ];
    for (const [body, mismatched] of cases) {
      const r = await publish(g, verdict.id, body);
      expect(r.status).toBe(422);
      expect(r.body.error).toMatchObject({ type: "fingerprint_mismatch", param: mismatched[0], mismatched });
    }
    expect((await publicPage(g, verdict.id)).status).toBe(404);
    expect((await g.h.json("GET", `/v1/judge/verdicts/${verdict.id}`, auth(g))).body.published).toBe(false);
    expect(g.h.ctx.db.query("SELECT * FROM judge_publications").all()).toEqual([]);
  });

  test("a yes/no verdict with an abstainer publishes with null for the missing rationale", async () => {
    const g = await startJudge();
    const question = `Ship it? ${votes(A, "yes", "ready")} [[say@${B} not json]]`;
    const r = await judge(g, { question, jurors: [A, B] });
    expect(r.body.votes.map((v: any) => v.rationale)).toEqual(["ready", null]);
    const ok = await publish(g, r.body.id, { question, rationales: ["ready", null] });
    expect(ok.status).toBe(200);
    const page = await publicPage(g, r.body.id);
    expect(page.body).toMatchObject({ candidates: null, rubric: null, verdict: "yes" });
    expect(page.body.votes[1]).toMatchObject({ status: "abstained", reason: "unparseable_answer", rationale: null });
  });

  test("unpublishing deletes the content: the public page answers 404 again (idempotent)", async () => {
    const g = await startJudge();
    const { verdict, content } = await aVerdict(g);
    expect((await publish(g, verdict.id, content)).status).toBe(200);
    const r = await unpublish(g, verdict.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ published: false, published_at: null, public_url: null });
    expect((await publicPage(g, verdict.id)).status).toBe(404);
    expect(g.h.ctx.db.query("SELECT * FROM judge_publications").all()).toEqual([]);
    expect((await unpublish(g, verdict.id)).status).toBe(200);
    // The verdict itself stays, content-free; it can be published again.
    expect((await publish(g, verdict.id, content)).status).toBe(200);
    expect((await publicPage(g, verdict.id)).status).toBe(200);
  });

  test("bad publish bodies name the field", async () => {
    const g = await startJudge();
    const { verdict, content } = await aVerdict(g);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...content, question: undefined }, "question"],
      [{ ...content, rationales: undefined }, "rationales"],
      [{ ...content, rationales: [] }, "rationales"],
      [{ ...content, rationales: [1, 2, 3] }, "rationales.0"],
      [{ ...content, extra: true }, "extra"],
    ];
    for (const [body, param] of cases) {
      const r = await publish(g, verdict.id, body);
      expect([param, r.status, r.body.error.param]).toEqual([param, 400, param]);
    }
  });
});

describe("tenancy and scope", () => {
  test("another account's verdict is 404 on every route, exactly like an unknown id", async () => {
    const g = await startJudge();
    const { verdict, content } = await aVerdict(g);
    const other = accountWithSession(g.h.ctx);
    const otherKey = apiKeyFor(g.h.ctx, other.account.id).token;
    for (const id of [verdict.id, "vrd_aaaaaaaaaaaaaaaaaaaaaaaa"]) {
      const got = await g.h.json("GET", `/v1/judge/verdicts/${id}`, auth(g, otherKey));
      const pub = await publish(g, id, content, otherKey);
      const unpub = await unpublish(g, id, otherKey);
      for (const r of [got, pub, unpub]) expect([id, r.status, r.body.error.type]).toEqual([id, 404, "not_found"]);
    }
    expect((await g.h.json("GET", "/v1/judge/verdicts", auth(g, otherKey))).body.verdicts).toEqual([]);
    // The owner's verdict was not touched by the attempts.
    expect((await publicPage(g, verdict.id)).status).toBe(404);
  });

  test('a key without the "records" scope is refused with 403 on every API-key route', async () => {
    const g = await startJudge();
    const { verdict, content } = await aVerdict(g);
    const key = apiKeyFor(g.h.ctx, g.accountId, { scopes: ["inference"] }).token;
    const answers = [
      await judge(g, { question: "Is it?", jurors: [A] }, key),
      await g.h.json("GET", "/v1/judge/verdicts", auth(g, key)),
      await g.h.json("GET", `/v1/judge/verdicts/${verdict.id}`, auth(g, key)),
      await publish(g, verdict.id, content, key),
      await unpublish(g, verdict.id, key),
    ];
    for (const r of answers) expect([r.status, r.body.error.type]).toEqual([403, "missing_scope"]);
    // A session is not an API key.
    expect((await g.h.json("GET", "/v1/judge/verdicts", { headers: bearer(g.sessionToken) })).status).toBe(401);
  });

  test("the public page needs no credential, and an unknown id is 404", async () => {
    const g = await startJudge();
    expect((await publicPage(g, "vrd_aaaaaaaaaaaaaaaaaaaaaaaa")).status).toBe(404);
    expect((await publicPage(g, "nope")).body.error.type).toBe("not_found");
  });
});

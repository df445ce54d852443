/**
 * POST /v1/judge/verdicts through HTTP with stand-in jurors: aggregation (plurality, tie,
 * undecided, yes/no), abstentions, juror failures, refusals before anything is billed, billing
 * and receipts.
 */
import { describe, expect, test } from "bun:test";
import { mintKey } from "../../../src/domains/keys/service.ts";
import { type Gateway, USD, verifyReceipt } from "../inference/inference-support.ts";
import { bearer } from "../../support/harness.ts";
import { billed, FAILING_JUROR, judge, JURORS, sha256, SLOW_JURORS, startJudge, says, VERDICT_PRICE, votes } from "./judge-support.ts";

const [A, B, C] = JURORS;

/** The account's balance, and that nothing at all was billed or called since `before`. */
function expectNothingBilled(g: Gateway, before: number) {
  expect(g.h.ctx.ledger.balance(g.accountId).balance_micro_usd).toBe(before);
  expect(billed(g).events).toEqual([]);
  expect(billed(g).receipts).toEqual([]);
  expect(g.stub.requests).toEqual([]);
}

describe("aggregation", () => {
  test("3 jurors voting 2-1: the plurality choice, each vote with its rationale and receipt, fingerprints the receipt signs", async () => {
    const g = await startJudge();
    const question = `Which reply is kinder? ${votes(A, "A", "warmer tone")} ${votes(B, "a", "it thanks the user")} ${votes(C, "B", "more direct")}`;
    const candidates = ["Thanks so much for asking!", "No."];
    const rubric = "Kindness first, then brevity.";
    const r = await judge(g, { question, candidates, rubric, jurors: [...JURORS] });
    expect(r.status).toBe(201);
    const v = r.body;
    expect(v.id).toMatch(/^vrd_/);
    expect(v.verdict).toBe("A");
    expect(v.choices).toEqual(["A", "B"]);
    expect(v.tally).toEqual({ choices: { A: 2, B: 1 }, abstained: 0, failed: 0 });
    expect(v.votes.map((x: any) => [x.juror, x.status, x.choice, x.rationale, x.reason])).toEqual([
      [A, "voted", "A", "warmer tone", null],
      [B, "voted", "A", "it thanks the user", null],
      [C, "voted", "B", "more direct", null],
    ]);
    expect(v.juror_receipt_ids).toEqual(v.votes.map((x: any) => x.receipt_id));
    expect(new Set(v.juror_receipt_ids).size).toBe(3);
    expect(v).not.toHaveProperty("question");

    // Fingerprints, recomputed independently: sha256 of the UTF-8 text, and of the JSON arrays (canonical JSON of strings is their JSON).
    expect(v.fingerprints).toEqual({
      question_sha256: sha256(question),
      candidates_sha256: sha256(JSON.stringify(candidates)),
      rubric_sha256: sha256(rubric),
      rationales_sha256: sha256(JSON.stringify(["warmer tone", "it thanks the user", "more direct"])),
    });

    // The verdict's own receipt states them, signed by the deployment's signer.
    const payload = await verifyReceipt(g, v.receipt.receipt, v.receipt.signature);
    expect(v.receipt.signer).toBe(g.h.ctx.signer.address);
    expect(payload).toMatchObject({ id: v.receipt.receipt_id, kind: "judge", resource: v.id, status: "succeeded", cost_micro_usd: VERDICT_PRICE });
    expect(payload.units).toEqual({ prompt_version: 1, mode: "candidates", choices_offered: 2, jurors: 3, voted: 3, abstained: 0, failed: 0, verdict: "A" });
    expect(payload.attestations).toEqual({
      fingerprints: { question_sha256: v.fingerprints.question_sha256, candidates_sha256: v.fingerprints.candidates_sha256, rubric_sha256: v.fingerprints.rubric_sha256, rationales_sha256: v.fingerprints.rationales_sha256 },
      jurors: { models: [...JURORS], votes: ["A", "A", "B"], receipt_ids: v.juror_receipt_ids },
    });

    // Each juror was asked once, in JSON mode, with the question, the labelled candidates and the rubric.
    const calls = g.stub.requests.filter((q) => q.path === "/v1/chat/completions");
    expect(calls.map((q) => q.body.model).sort()).toEqual([...JURORS]);
    for (const call of calls) {
      expect(call.body.response_format).toEqual({ type: "json_object" });
      const user = call.body.messages.find((m: any) => m.role === "user").content as string;
      expect(user).toContain(question);
      expect(user).toContain(`A:\n<<<\n${candidates[0]}\n>>>`);
      expect(user).toContain(`B:\n<<<\n${candidates[1]}\n>>>`);
      expect(user).toContain(rubric);
      expect(call.body.messages[0].content).toContain('{"choice"');
    }
  });

  test("a tie between the top choices is `tie`; without candidates the choices are yes and no", async () => {
    const g = await startJudge();
    const tie = await judge(g, { question: `Pick. ${votes(A, "A", "one")} ${votes(B, "B", "two")}`, candidates: ["x", "y", "z"], jurors: [A, B] });
    expect(tie.status).toBe(201);
    expect(tie.body.verdict).toBe("tie");
    expect(tie.body.tally).toEqual({ choices: { A: 1, B: 1, C: 0 }, abstained: 0, failed: 0 });

    const yesNo = await judge(g, { question: `Is water wet? ${votes(A, "yes", "it is")} ${votes(B, " No ", "it is not")} ${votes(C, "YES", "obviously")}`, jurors: [...JURORS] });
    expect(yesNo.status).toBe(201);
    expect(yesNo.body.choices).toEqual(["yes", "no"]);
    expect(yesNo.body.verdict).toBe("yes");
    expect(yesNo.body.votes.map((x: any) => x.choice)).toEqual(["yes", "no", "yes"]);
    expect(yesNo.body.fingerprints.candidates_sha256).toBeNull();
    expect(yesNo.body.fingerprints.rubric_sha256).toBeNull();
    const payload = await verifyReceipt(g, yesNo.body.receipt.receipt, yesNo.body.receipt.signature);
    expect(payload.units.mode).toBe("yes_no");
    // No candidates and no rubric: those fingerprints are absent from what the receipt states.
    expect(Object.keys(payload.attestations.fingerprints).sort()).toEqual(["question_sha256", "rationales_sha256"]);
  });

  test("an answer that does not parse, or names no offered choice, is an abstention: still billed, not counted", async () => {
    const g = await startJudge();
    const question = `Which? ${votes(A, "B", "shorter")} ${says(B, "I think B, honestly.")} ${votes(C, "Z", "neither")}`;
    const r = await judge(g, { question, candidates: ["long answer", "short"], jurors: [...JURORS] });
    expect(r.status).toBe(201);
    expect(r.body.verdict).toBe("B");
    expect(r.body.votes.map((x: any) => [x.status, x.choice, x.reason, x.rationale])).toEqual([
      ["voted", "B", null, "shorter"],
      ["abstained", null, "unparseable_answer", null],
      ["abstained", null, "no_valid_choice", "neither"],
    ]);
    expect(r.body.tally).toEqual({ choices: { A: 0, B: 1 }, abstained: 2, failed: 0 });
    // Abstainers' calls happened, so they have receipts.
    expect(r.body.votes.every((x: any) => typeof x.receipt_id === "string")).toBe(true);
    expect(r.body.fingerprints.rationales_sha256).toBe(sha256(JSON.stringify(["shorter", null, "neither"])));
    const payload = await verifyReceipt(g, r.body.receipt.receipt, r.body.receipt.signature);
    expect(payload.attestations.jurors.votes).toEqual(["B", "abstained", "abstained"]);

    // A fenced JSON object is read; the stub's unscripted JSON ({"reply": …}) names no choice.
    const fenced = await judge(g, { question: `Q ${says(A, '```json\n{"choice": "yes", "rationale": "fenced"}\n```')}`, jurors: [A, B] });
    expect(fenced.body.votes.map((x: any) => [x.choice, x.reason])).toEqual([
      ["yes", null],
      [null, "no_valid_choice"],
    ]);
    expect(fenced.body.verdict).toBe("yes");

    const none = await judge(g, { question: "Nobody answers this properly.", jurors: [A, B] });
    expect(none.status).toBe(201);
    expect(none.body.verdict).toBe("undecided");
    expect(none.body.tally).toEqual({ choices: { yes: 0, no: 0 }, abstained: 2, failed: 0 });
  });

  test("a rationale is trimmed and cut at 2,000 characters before it is fingerprinted", async () => {
    const g = await startJudge();
    const long = "x".repeat(2500);
    const r = await judge(g, { question: `Q ${votes(A, "yes", `  ${long}  `)}`, jurors: [A] });
    expect(r.body.votes[0].rationale).toBe("x".repeat(2000));
    expect(r.body.fingerprints.rationales_sha256).toBe(sha256(JSON.stringify(["x".repeat(2000)])));
  });
});

describe("a juror whose upstream fails", () => {
  test("is recorded as failed (nothing billed for it) and the verdict stands on the others", async () => {
    const g = await startJudge();
    const r = await judge(g, { question: `Q ${votes(A, "no", "n")} ${votes(B, "no", "m")}`, jurors: [A, FAILING_JUROR, B] });
    expect(r.status).toBe(201);
    expect(r.body.verdict).toBe("no");
    expect(r.body.votes[1]).toEqual({ juror: FAILING_JUROR, status: "failed", choice: null, rationale: null, reason: "upstream_error", receipt_id: null });
    expect(r.body.tally).toEqual({ choices: { yes: 0, no: 2 }, abstained: 0, failed: 1 });
    expect(r.body.juror_receipt_ids).toEqual([r.body.votes[0].receipt_id, r.body.votes[2].receipt_id]);
    const payload = await verifyReceipt(g, r.body.receipt.receipt, r.body.receipt.signature);
    expect(payload.units.failed).toBe(1);
    expect(payload.attestations.jurors).toEqual({ models: [A, FAILING_JUROR, B], votes: ["no", "failed", "no"], receipt_ids: [r.body.votes[0].receipt_id, "", r.body.votes[2].receipt_id] });
    expect(billed(g).events.filter((e) => e.kind === "inference").length).toBe(2);
  });

  test("when every juror failed there is no verdict: 502 jurors_failed and nothing billed", async () => {
    const g = await startJudge();
    const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const r = await judge(g, { question: "Anyone?", jurors: [FAILING_JUROR] });
    expect(r.status).toBe(502);
    expect(r.body.error.type).toBe("jurors_failed");
    expect(r.body.error.jurors).toEqual([{ juror: FAILING_JUROR, type: "upstream_error" }]);
    expect(g.h.ctx.ledger.balance(g.accountId)).toMatchObject({ balance_micro_usd: before, held_micro_usd: 0 });
    expect(billed(g)).toEqual({ events: [], receipts: [] });
  });
});

describe("refused before anything is billed", () => {
  test("0 or 6 jurors, a repeated juror, an unknown model, an embedding model", async () => {
    const g = await startJudge();
    const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const cases: [string[], number, string, string][] = [
      [[], 400, "jurors", "invalid_request"],
      [[A, B, C, "juror-d", "juror-e", "juror-f"], 400, "jurors", "invalid_request"],
      [[A, B, A], 400, "jurors.2", "invalid_request"],
      [[A, B, "no-such-model"], 404, "jurors.2", "model_not_found"],
      [["embed-test", A], 400, "jurors.0", "invalid_request"],
    ];
    for (const [jurors, status, param, type] of cases) {
      const r = await judge(g, { question: "Is it?", jurors });
      expect([jurors, r.status, r.body.error.param, r.body.error.type]).toEqual([jurors, status, param, type]);
    }
    expectNothingBilled(g, before);
  });

  test("a juror outside the key's allowed models is refused whole (403), before the others are called", async () => {
    const g = await startJudge();
    const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const { key } = mintKey(g.h.ctx, { accountId: g.accountId, allowedModels: [A, B] });
    const r = await judge(g, { question: "Is it?", jurors: [A, C, B] }, key);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "resource_not_allowed", param: "jurors.1" });
    expectNothingBilled(g, before);
  });

  test("an account that cannot pay the verdict's price: 402 before any juror is called", async () => {
    const g = await startJudge({ credit: 0 });
    g.h.ctx.ledger.credit(g.accountId, VERDICT_PRICE - 1, { type: "deposit" });
    const r = await judge(g, { question: "Is it?", jurors: [A, B] });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    expectNothingBilled(g, VERDICT_PRICE - 1);
  });

  test("credit for the verdict but not the jurors: 402, the verdict's hold released, the billed jurors named", async () => {
    const g = await startJudge({ credit: 0 });
    g.h.ctx.ledger.credit(g.accountId, VERDICT_PRICE + 10, { type: "deposit" });
    const r = await judge(g, { question: "Is it?", jurors: [A, B] });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    // Each juror's reservation (its worst case) is above the credit left, so none was called.
    expect(r.body.error.juror_receipt_ids).toEqual([]);
    expect(g.h.ctx.ledger.balance(g.accountId)).toMatchObject({ balance_micro_usd: VERDICT_PRICE + 10, held_micro_usd: 0 });
    expect(billed(g)).toEqual({ events: [], receipts: [] });
  });

  test("a juror refused for credit stops the jurors still in flight: their holds are released, nothing is billed", async () => {
    const g = await startJudge({ credit: 0 });
    // The verdict's price and one juror's reservation (its max_tokens at $2/Mtok, ~2,100), not two.
    g.h.ctx.ledger.credit(g.accountId, VERDICT_PRICE + 3000, { type: "deposit" });
    const r = await judge(g, { question: "Is it?", jurors: [...SLOW_JURORS] });
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ type: "insufficient_credit", juror_receipt_ids: [] });
    // The other juror's call was stopped before it was answered (often before it even reached the upstream).
    expect(g.stub.requests.filter((q) => q.completed)).toEqual([]);
    expect(g.h.ctx.ledger.balance(g.accountId)).toMatchObject({ balance_micro_usd: VERDICT_PRICE + 3000, held_micro_usd: 0 });
    expect(billed(g)).toEqual({ events: [], receipts: [] });
  });

  test("table-driven bad bodies name the field", async () => {
    const g = await startJudge();
    const ok = { question: "Is it?", jurors: [A] };
    const cases: [Record<string, unknown>, string][] = [
      [{ jurors: [A] }, "question"],
      [{ ...ok, question: "" }, "question"],
      [{ ...ok, question: "q".repeat(20_001) }, "question"],
      [{ ...ok, question: 7 }, "question"],
      [{ ...ok, candidates: ["only one"] }, "candidates"],
      [{ ...ok, candidates: Array.from({ length: 11 }, (_, i) => `c${i}`) }, "candidates"],
      [{ ...ok, candidates: ["fine", ""] }, "candidates.1"],
      [{ ...ok, candidates: ["fine", "c".repeat(20_001)] }, "candidates.1"],
      [{ ...ok, candidates: "A or B" }, "candidates"],
      [{ ...ok, candidates: null }, "candidates"],
      [{ ...ok, rubric: "" }, "rubric"],
      [{ ...ok, rubric: "r".repeat(5001) }, "rubric"],
      [{ ...ok, jurors: A }, "jurors"],
      [{ ...ok, jurors: [""] }, "jurors.0"],
      [{ ...ok, jurors: [7] }, "jurors.0"],
      [{ question: "Is it?" }, "jurors"],
      [{ ...ok, temperature: 0 }, "temperature"],
    ];
    for (const [body, param] of cases) {
      const r = await judge(g, body);
      expect([param, r.status, r.body.error?.param]).toEqual([param, 400, param]);
    }
    expect(g.stub.requests).toEqual([]);
  });
});

describe("billing", () => {
  test("credit falls by the jurors' receipts plus the verdict's price, and every receipt verifies", async () => {
    const g = await startJudge();
    const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const r = await judge(g, { question: `Q ${votes(A, "A", "a")} ${votes(B, "B", "b")} ${votes(C, "B", "c")}`, candidates: ["one", "two"], jurors: [...JURORS] });
    expect(r.status).toBe(201);
    let jurorCosts = 0;
    for (const id of r.body.juror_receipt_ids) {
      const got = await g.h.json("GET", `/v1/receipts/${id}`, { headers: bearer(g.sessionToken) });
      expect(got.status).toBe(200);
      const payload = await verifyReceipt(g, got.body.receipt, got.body.signature);
      expect(payload).toMatchObject({ kind: "inference", account: g.accountId, key_id: g.keyId, status: "succeeded" });
      expect(payload.cost_micro_usd).toBeGreaterThan(0);
      jurorCosts += payload.cost_micro_usd;
    }
    const verdictPayload = await verifyReceipt(g, r.body.receipt.receipt, r.body.receipt.signature);
    expect(verdictPayload.cost_micro_usd).toBe(VERDICT_PRICE);
    expect(r.body.cost_micro_usd).toBe(jurorCosts + VERDICT_PRICE);
    expect(g.h.ctx.ledger.balance(g.accountId)).toMatchObject({ balance_micro_usd: before - jurorCosts - VERDICT_PRICE, held_micro_usd: 0 });
    expect(billed(g).events.map((e) => e.kind).sort()).toEqual(["inference", "inference", "inference", "judge"]);
  });

  test("a zero verdict price (the default) still settles through the meter and mints the verdict's receipt", async () => {
    const g = await startJudge({ harness: { config: (c) => (c.judge.verdict_price_micro_usd = 0) } });
    const r = await judge(g, { question: `Q ${votes(A, "yes", "y")}`, jurors: [A] });
    expect(r.status).toBe(201);
    const payload = await verifyReceipt(g, r.body.receipt.receipt, r.body.receipt.signature);
    expect(payload).toMatchObject({ kind: "judge", cost_micro_usd: 0, units: { verdict: "yes" } });
    expect(r.body.cost_micro_usd).toBeLessThan(USD);
  });
});

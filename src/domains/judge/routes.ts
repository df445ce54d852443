/**
 * /v1/judge (spec §4.3 "Judge", API key with the "records" scope; §4.1 the public page).
 * Thin: each route validates, calls one service function and shapes the answer. Rules:
 * service.ts and jury.ts; docs: docs/judge.md.
 *
 *   POST /v1/judge/verdicts                  {question, candidates?, rubric?, jurors} → 201, content returned once
 *   GET  /v1/judge/verdicts                  ?limit= → {verdicts, trust_model} (content-free)
 *   GET  /v1/judge/verdicts/:id              content-free
 *   POST /v1/judge/verdicts/:id/publish      {question, candidates?, rubric?, rationales} checked against the fingerprints
 *   POST /v1/judge/verdicts/:id/unpublish
 *   GET  /v1/judge/public/:id                public: a published verdict with its content (404 otherwise)
 */
import { Elysia } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { VERDICTS_LIMIT } from "./limits.ts";
import * as M from "./models.ts";
import { createVerdict, getVerdict, listVerdicts, publicVerdict, publishVerdict, TRUST_MODEL, unpublishVerdict } from "./service.ts";

const tags = ["judge"];
const security = [{ apiKey: [] }];

const content = (body: { question: string; candidates?: string[]; rubric?: string }) => ({
  question: body.question,
  candidates: body.candidates ?? null,
  rubric: body.rubric ?? null,
});

export function judgeRoutes(ctx: Context) {
  const owned = new Elysia({ prefix: "/v1/judge/verdicts" })
    .use(guards.apiKey(ctx, "records"))
    .post(
      "",
      async ({ principal, body, request, set }) => {
        const verdict = await createVerdict(ctx, { accountId: principal.accountId, keyId: principal.keyId }, { ...content(body), jurors: body.jurors }, request.signal);
        set.status = 201;
        return verdict;
      },
      {
        body: M.CreateBody,
        // 404 model_not_found (jurors.N), 402 credit or a spend cap, 429/504 passed on from a
        // juror's refusal, 502 jurors_failed (every juror's upstream failed).
        response: { 201: M.CreatedVerdict, ...errors(402, 404, 429, 502, 503, 504) },
        detail: {
          summary: "Ask 1-5 juror models for a verdict; the rationales are returned once, the content is not stored",
          description:
            "Each juror is called in parallel and answers {choice, rationale}; the verdict is the plurality choice, `tie` or `undecided`. The verdict's own signed receipt states the content's sha256 fingerprints. See docs/judge.md.",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal, query }) => namedList("verdicts", listVerdicts(ctx, principal.accountId, parseLimit(query.limit, VERDICTS_LIMIT)), { trust_model: TRUST_MODEL }), {
      query: M.ListQuery,
      response: { 200: M.VerdictList },
      detail: { summary: "The key's account's verdicts, newest first, content-free ({verdicts, trust_model})", tags, security },
    })
    .get("/:id", ({ principal, params }) => getVerdict(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Verdict },
      detail: { summary: "One verdict, content-free, with its publication state", tags, security },
    })
    .post("/:id/publish", ({ principal, params, body }) => publishVerdict(ctx, principal.accountId, params.id, { ...content(body), rationales: body.rationales }), {
      params: M.Params,
      body: M.PublishBody,
      response: { 200: M.Verdict, ...errors(422) },
      detail: {
        summary: "Publish a verdict: the re-supplied content is stored only when it matches the signed fingerprints (422 fingerprint_mismatch otherwise)",
        tags,
        security,
      },
    })
    .post("/:id/unpublish", ({ principal, params }) => unpublishVerdict(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Verdict },
      detail: { summary: "Withdraw a published verdict: its content is deleted and the public page answers 404 (idempotent)", tags, security },
    });

  const open = new Elysia({ prefix: "/v1/judge/public" }).use(guards.public(ctx)).get("/:id", ({ params }) => publicVerdict(ctx, params.id), {
    params: M.Params,
    response: { 200: M.PublicVerdict },
    detail: { summary: "A published verdict with its content, votes, fingerprints and signed receipt (404 until published)", tags },
  });

  return [owned, open];
}

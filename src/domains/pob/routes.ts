/**
 * /v1/pob (spec §4.4 session routes, §4.1 public lines). Thin: each route validates, calls one
 * service function and shapes the answer. Rules: subjects.ts, checks.ts, history.ts, public.ts;
 * docs: docs/pob.md.
 *
 *   POST  /v1/pob/subjects                {name, endpoint, credential?, pointer, interval_s?, claimed_supply? | supply_source?}
 *   GET   /v1/pob/subjects                {subjects}
 *   GET   /v1/pob/subjects/:id
 *   GET   /v1/pob/subjects/:id/checks     ?limit=&before_seq= → {checks, subject_id, slug, next_before_seq}
 *   POST  /v1/pob/subjects/:id/check      runs one check now (free)
 *   PATCH /v1/pob/subjects/:id            name, endpoint, credential, pointer, interval_s only
 *   POST  /v1/pob/subjects/:id/retire
 *   GET   /v1/pob/public/:slug            (public)
 *   GET   /v1/pob/public/:slug/checks     (public) ?limit=&before_seq= → {checks, slug, next_before_seq}
 *   GET   /v1/pob/directory               (public) {subjects, count, ordered_by}
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { checkHistory } from "./history.ts";
import * as M from "./models.ts";
import { directory, publicSubject, publicSubjectRecord } from "./public.ts";
import { checkNow, createSubject, getSubject, listSubjects, ownSubject, patchSubject, retireSubject } from "./subjects.ts";
import { checkView } from "./view.ts";

const tags = ["pob"];
const session = [{ session: [] }];

export function pobRoutes(ctx: Context) {
  const owner = new Elysia({ prefix: "/v1/pob/subjects" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const subject = createSubject(ctx, principal.accountId, body);
        set.status = 201;
        return subject;
      },
      {
        body: M.CreateBody,
        // 409 subject_limit_reached (pob.max_active_subjects)
        response: { 201: M.Subject, ...errors(409) },
        detail: {
          summary: "Watch a custodian's reported reserve: checked every interval_s, each check published under the subject's public slug",
          description: "The credential is sealed and never shown. Compare against claimed_supply or a supply_source for BACKED/UNDERBACKED; with neither, checks are REPORTED. See docs/pob.md.",
          tags,
          security: session,
        },
      },
    )
    .get("", ({ principal }) => namedList("subjects", listSubjects(ctx, principal.accountId)), {
      response: { 200: M.SubjectList },
      detail: { summary: "The account's proof-of-backing subjects, newest first ({subjects: [...]})", tags, security: session },
    })
    .get("/:id", ({ principal, params }) => getSubject(ctx, principal.accountId, params.id), {
      params: M.SubjectParams,
      response: { 200: M.Subject },
      detail: { summary: "A subject with its latest check", tags, security: session },
    })
    .get(
      "/:id/checks",
      ({ principal, params, query }) => {
        const subject = ownSubject(ctx, principal.accountId, params.id);
        const page = checkHistory(ctx, subject, query);
        return namedList("checks", page.checks, { subject_id: subject.id, slug: subject.slug, next_before_seq: page.next_before_seq });
      },
      {
        params: M.SubjectParams,
        query: M.ChecksQuery,
        response: { 200: M.OwnerChecks },
        detail: { summary: "The subject's checks, newest first, paged with before_seq (UNAVAILABLE checks included)", tags, security: session },
      },
    )
    .post(
      "/:id/check",
      async ({ principal, params, set }) => {
        const { subject, check } = await checkNow(ctx, principal.accountId, params.id);
        set.status = 201;
        return checkView(subject.slug, check);
      },
      {
        params: M.SubjectParams,
        // 409 subject_retired; 429 within 10 s of the previous check-now
        response: { 201: M.Check, ...errors(409, 429) },
        detail: { summary: "Run and publish one check now (free); the schedule then counts from it", tags, security: session },
      },
    )
    .patch("/:id", ({ principal, params, body }) => patchSubject(ctx, principal.accountId, params.id, body), {
      params: M.SubjectParams,
      body: M.PatchBody,
      response: { 200: M.Subject, ...errors(409) },
      detail: { summary: "Change name, endpoint, credential (null removes it), pointer or interval_s; nothing else (the slug never changes)", tags, security: session },
    })
    .post("/:id/retire", ({ principal, params }) => retireSubject(ctx, principal.accountId, params.id), {
      params: M.SubjectParams,
      response: { 200: M.Subject },
      detail: { summary: "Retire the subject: scheduled checks stop; its published checks stay public (idempotent)", tags, security: session },
    });

  const open = new Elysia({ prefix: "/v1/pob" })
    .use(guards.public(ctx))
    .get("/directory", () => directory(ctx), {
      response: { 200: M.Directory },
      detail: { summary: "Every proof-of-backing subject, active and retired, newest first ({subjects, count, ordered_by})", tags },
    })
    .get("/public/:slug", ({ params }) => publicSubject(ctx, params.slug), {
      params: M.SlugParams,
      response: { 200: M.PublicSubject },
      detail: { summary: "A subject's public page: its sources (never credentials) and latest check", tags },
    })
    .get(
      "/public/:slug/checks",
      ({ params, query }) => {
        const subject = publicSubjectRecord(ctx, params.slug);
        const page = checkHistory(ctx, subject, query);
        return namedList("checks", page.checks, { slug: subject.slug, next_before_seq: page.next_before_seq });
      },
      {
        params: M.SlugParams,
        query: M.ChecksQuery,
        response: { 200: M.PublicChecks },
        detail: { summary: "A subject's published checks, newest first, keyset-paged with before_seq; failures are never filtered", tags },
      },
    );

  return [owner, open];
}

/**
 * The public side (spec §4.1, no credential): every subject is public from its creation — a
 * proof of backing nobody can look at proves nothing — under its slug, active or retired, with
 * every check it ever published. Unknown slugs answer 404.
 */
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { DIRECTORY_CAP } from "./limits.ts";
import { allSubjects, subjectBySlug, type SubjectRecord } from "./store.ts";
import { publicSubjectView, type PublicSubjectView } from "./view.ts";

export function publicSubjectRecord(ctx: Context, slug: string): SubjectRecord {
  const s = subjectBySlug(ctx, slug);
  if (!s) throw notFound("proof-of-backing subject");
  return s;
}

export const publicSubject = (ctx: Context, slug: string): PublicSubjectView => publicSubjectView(ctx, publicSubjectRecord(ctx, slug));

export function directory(ctx: Context): { subjects: PublicSubjectView[]; count: number; ordered_by: "created_at_desc" } {
  const { subjects, count } = allSubjects(ctx, DIRECTORY_CAP);
  return { subjects: subjects.map((s) => publicSubjectView(ctx, s)), count, ordered_by: "created_at_desc" };
}

/**
 * Upload purposes: what a file may be uploaded for, and how each of its lines is checked on the
 * way in. The files area stores and serves lines; the area that consumes a purpose (batches for
 * "batch") registers its line checker in its wire(), so the rules of a batch line live with
 * batches and files knows no endpoint.
 */
import type { Context } from "../../context.ts";

/** Checks one parsed line (1-based `lineNo`); throws a reason (an Error whose message names what is wrong). Stateful per upload (unique ids). */
export interface LineChecker {
  line(value: unknown, lineNo: number): void;
}

export interface UploadPurpose {
  /** A fresh checker for one upload's lines. */
  checker(): LineChecker;
  /** Why the file may not be deleted now (a batch running on it), or null. */
  inUse?(fileId: string): string | null;
}

export type UploadPurposes = Map<string, UploadPurpose>;

declare module "../../context.ts" {
  interface Context {
    uploadPurposes: UploadPurposes;
  }
}

/** Lets `purpose` be uploaded, each line checked by a fresh checker from `purpose.checker()`. */
export function registerUploadPurpose(ctx: Context, name: string, purpose: UploadPurpose): void {
  ctx.uploadPurposes.set(name, purpose);
}

/** A line's fault, reported as a 400 naming the line. */
export class LineError extends Error {}

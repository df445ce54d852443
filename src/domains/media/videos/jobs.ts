/** The video jobs' scheduler handlers (none until the video work lands). */
import type { Context } from "../../../context.ts";

export function registerVideoJobs(_ctx: Context): void {}

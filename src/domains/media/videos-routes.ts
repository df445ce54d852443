/** /v1/videos/generations: video jobs (mounted empty until the video work lands). */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";

export function videoRoutes(_ctx: Context) {
  return new Elysia({ prefix: "/v1/videos/generations" });
}

/**
 * Helpers of the video job tests: start a job through the harness, move the clock one poll
 * interval and run what fell due, read a job back.
 */
import { expect } from "bun:test";
import type { MediaGateway } from "./media-support.ts";

export const POLL_MS = 5_000;
export const auth = (token: string) => ({ authorization: `Bearer ${token}` });

export async function startJob(g: MediaGateway, body: Record<string, unknown> = {}, token = g.key): Promise<any> {
  const r = await g.h.json("POST", "/v1/videos/generations", { headers: auth(token), body: { model: "vid-test", prompt: "a red kite over the sea", ...body } });
  if (r.status !== 202) throw new Error(`POST /v1/videos/generations answered ${r.status}: ${JSON.stringify(r.body)}`);
  expect(r.body.id).toStartWith("vid_");
  return r.body;
}

/** Moves the clock `ms` and runs every job that fell due (the video polls among them). */
export async function tick(g: MediaGateway, ms = POLL_MS): Promise<void> {
  g.h.clock.advance(ms);
  await g.h.ctx.scheduler.runDue();
}

export async function jobOf(g: MediaGateway, id: string, token = g.key): Promise<any> {
  const r = await g.h.json("GET", `/v1/videos/generations/${id}`, { headers: auth(token) });
  expect(r.status).toBe(200);
  return r.body;
}

/** Polls (a bounded number of times) until the job leaves queued/running. */
export async function untilFinished(g: MediaGateway, id: string, maxPolls = 10): Promise<any> {
  for (let i = 0; i < maxPolls; i++) {
    const job = await jobOf(g, id);
    if (job.status !== "queued" && job.status !== "running") return job;
    await tick(g);
  }
  throw new Error(`video job ${id} still unfinished after ${maxPolls} polls`);
}

/** The stand-in's requests that created a video job. */
export const creates = (g: MediaGateway) => g.media.requests.filter((r) => r.method === "POST" && r.path === "/v1/videos");

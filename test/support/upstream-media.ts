/**
 * A stand-in media provider on 127.0.0.1: the OpenAI Images API (POST /v1/images/generations)
 * and Videos API (POST /v1/videos multipart, GET /v1/videos/:id, GET /v1/videos/:id/content),
 * answering with real small files (test/fixtures/media: a PNG, a JPEG, an MP4 made by ffmpeg).
 *
 * Behaviour is scripted in the prompt, so one provider serves every case:
 *   [[jpeg]]        images: JPEG instead of PNG
 *   [[url]]         images: answer with a url (served by this stand-in) instead of b64_json
 *   [[fail]]        images: 500; videos: the job ends "failed" at its last poll
 *   [[slow MS]]     images: answer after MS milliseconds
 *   [[polls N]]     videos: completed at the Nth GET (default 2); "in_progress" before
 *   [[never]]       videos: stays in_progress
 * Jobs live in memory, so the provider keeps its state across an svc restart (the restart test).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "media");
export const FIXTURE = {
  png: new Uint8Array(readFileSync(join(FIXTURES, "tiny.png"))),
  jpeg: new Uint8Array(readFileSync(join(FIXTURES, "tiny.jpg"))),
  mp4: new Uint8Array(readFileSync(join(FIXTURES, "tiny.mp4"))),
};

export interface StandInVideo {
  id: string;
  model: string;
  prompt: string;
  seconds: number;
  size: string | null;
  /** Bytes of the input_reference, when image-to-video. */
  inputReference: number | null;
  polls: number;
  completeAt: number;
  fail: boolean;
  never: boolean;
}

export interface MediaUpstream {
  /** http://127.0.0.1:PORT/v1 (a provider's base_url). */
  baseUrl: string;
  /** Every request: method, path, authorization header, and the JSON body (images) or form fields (videos). */
  requests: { method: string; path: string; authorization: string | null; body: Record<string, unknown> | null }[];
  videos: Map<string, StandInVideo>;
  stop(): void;
}

const knob = (prompt: string, name: string) => new RegExp(`\\[\\[${name}(?: (\\d+))?\\]\\]`).exec(prompt);
const nowSecs = () => Math.floor(Date.now() / 1000);

function videoObject(v: StandInVideo) {
  const done = !v.never && v.polls >= v.completeAt;
  const status = done ? (v.fail ? "failed" : "completed") : v.polls === 0 ? "queued" : "in_progress";
  return {
    id: v.id,
    object: "video",
    model: v.model,
    status,
    progress: done ? 100 : Math.min(99, Math.floor((100 * v.polls) / Math.max(1, v.completeAt))),
    seconds: String(v.seconds),
    size: v.size ?? "64x64",
    created_at: nowSecs(),
    completed_at: done ? nowSecs() : null,
    error: status === "failed" ? { code: "render_failed", message: "the stand-in was told to fail" } : null,
  };
}

export function startMediaUpstream(options: { apiKey?: string } = {}): MediaUpstream {
  const requests: MediaUpstream["requests"] = [];
  const videos = new Map<string, StandInVideo>();
  let next = 1;
  let port = 0;
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const authorization = req.headers.get("authorization");
      // Image URLs are public (signed URLs at real hosts): svc must fetch them without the provider key.
      if (options.apiKey && !url.pathname.startsWith("/files/") && authorization !== `Bearer ${options.apiKey}`) return Response.json({ error: { message: "bad key", type: "invalid_request_error" } }, { status: 401 });
      if (req.method === "GET" && url.pathname.startsWith("/files/")) {
        requests.push({ method: "GET", path: url.pathname, authorization, body: null });
        return new Response(FIXTURE.png, { headers: { "content-type": "image/png" } });
      }
      if (req.method === "POST" && url.pathname === "/v1/images/generations") {
        const body = (await req.json()) as Record<string, any>;
        requests.push({ method: "POST", path: url.pathname, authorization, body });
        const prompt = String(body.prompt ?? "");
        const slow = knob(prompt, "slow");
        if (slow) await Bun.sleep(Number(slow[1] ?? 1000));
        if (knob(prompt, "fail")) return Response.json({ error: { message: "the stand-in was told to fail", type: "server_error" } }, { status: 500 });
        const n = Number(body.n ?? 1);
        const bytes = knob(prompt, "jpeg") ? FIXTURE.jpeg : FIXTURE.png;
        const asUrl = knob(prompt, "url");
        const data = Array.from({ length: n }, (_, i) => (asUrl ? { url: `http://127.0.0.1:${port}/files/img-${i}.png` } : { b64_json: Buffer.from(bytes).toString("base64"), revised_prompt: prompt }));
        return Response.json({ created: nowSecs(), data, usage: { input_tokens: 10, output_tokens: 100 * n, total_tokens: 10 + 100 * n } });
      }
      if (req.method === "POST" && url.pathname === "/v1/videos") {
        const form = await req.formData();
        const ref = form.get("input_reference");
        const fields = Object.fromEntries([...form.entries()].filter(([, v]) => typeof v === "string"));
        requests.push({ method: "POST", path: url.pathname, authorization, body: { ...fields, input_reference: ref instanceof Blob ? ref.size : null } });
        const prompt = String(form.get("prompt") ?? "");
        const polls = knob(prompt, "polls");
        const v: StandInVideo = {
          id: `video_${next++}`,
          model: String(form.get("model")),
          prompt,
          seconds: Number(form.get("seconds") ?? 4),
          size: (form.get("size") as string | null) ?? null,
          inputReference: ref instanceof Blob ? ref.size : null,
          polls: 0,
          completeAt: polls ? Number(polls[1] ?? 2) : 2,
          fail: knob(prompt, "fail") !== null,
          never: knob(prompt, "never") !== null,
        };
        videos.set(v.id, v);
        return Response.json(videoObject(v));
      }
      const job = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(url.pathname);
      if (req.method === "GET" && job) {
        requests.push({ method: "GET", path: url.pathname, authorization, body: null });
        const v = videos.get(decodeURIComponent(job[1]!));
        if (!v) return Response.json({ error: { message: "no such video", type: "invalid_request_error" } }, { status: 404 });
        if (job[2]) {
          const o = videoObject(v);
          if (o.status !== "completed") return Response.json({ error: { message: "not completed", type: "invalid_request_error" } }, { status: 404 });
          return new Response(FIXTURE.mp4, { headers: { "content-type": "video/mp4" } });
        }
        v.polls++;
        return Response.json(videoObject(v));
      }
      return Response.json({ error: { message: `no route ${req.method} ${url.pathname}` } }, { status: 404 });
    },
  });
  port = server.port!;
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, requests, videos, stop: () => server.stop(true) };
}

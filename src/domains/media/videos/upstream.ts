/**
 * The provider's side of a video job (the openai-videos kind: create, retrieve, content), read
 * defensively: svc acts on a job object only once it has made sense of it.
 */
import type { Context } from "../../../context.ts";
import { ApiError } from "../../../core/errors.ts";
import type { CatalogProvider } from "../../inference/index.ts";

export interface UpstreamJob {
  id: string;
  status: "queued" | "running" | "completed" | "failed";
  progress: number;
  /** The duration the provider says it rendered, when it says. */
  seconds: number | null;
  error: { code: string; message: string } | null;
}

type VideosApi = NonNullable<CatalogProvider["adapter"]["videos"]>;

const badAnswer = (provider: string, what: string) =>
  Object.assign(new ApiError(502, "upstream_error", `provider ${provider}: the upstream answered with ${what}`, { provider }), { retryable: true });

/** A failure another provider (or a later try) might not have: the adapters' UpstreamError says so. */
export const isRetryable = (err: unknown): boolean => err instanceof ApiError && (err as { retryable?: unknown }).retryable === true;

const short = (v: unknown, max = 300): string | null => (typeof v === "string" && v.length ? v.slice(0, max) : null);

/** The provider's video object (OpenAI Videos API shape) as svc reads it. */
export function readUpstreamJob(provider: string, json: unknown): UpstreamJob {
  const o = (json ?? {}) as Record<string, unknown>;
  const id = short(o.id, 200);
  if (!id) throw badAnswer(provider, "a video job without an id");
  const raw = typeof o.status === "string" ? o.status : "";
  // Statuses svc does not know are read as still rendering: the deadline bounds the wait.
  const status = raw === "completed" ? "completed" : raw === "failed" ? "failed" : raw === "queued" ? "queued" : "running";
  const progress = typeof o.progress === "number" && Number.isFinite(o.progress) ? Math.max(0, Math.min(100, Math.floor(o.progress))) : 0;
  const secs = typeof o.seconds === "number" ? o.seconds : typeof o.seconds === "string" && /^\d+(\.\d+)?$/.test(o.seconds) ? Number(o.seconds) : null;
  const e = o.error && typeof o.error === "object" ? (o.error as Record<string, unknown>) : null;
  const error = status === "failed" ? { code: short(e?.code, 100) ?? "render_failed", message: short(e?.message) ?? "the provider reported the render failed" } : null;
  return { id, status, progress, seconds: secs !== null && secs > 0 ? Math.ceil(secs) : null, error };
}

/** The videos client of the provider that took the job, from the catalogue as it is now. */
export function videosOf(ctx: Context, providerName: string): VideosApi {
  const provider = ctx.catalog.current().provider(providerName);
  if (!provider?.adapter.videos) {
    throw Object.assign(new ApiError(502, "upstream_unavailable", `provider ${providerName} is no longer configured for video jobs`, { provider: providerName }), { retryable: true });
  }
  return provider.adapter.videos;
}

export interface CreateInput {
  model: string;
  prompt: string;
  seconds: number;
  size?: string;
  image?: { bytes: Uint8Array; mime: string };
}

/** Starts the render at the first provider that takes it; a retryable failure moves on to the next. */
export async function createAtProvider(providers: CatalogProvider[], input: CreateInput): Promise<{ provider: CatalogProvider; job: UpstreamJob }> {
  let last: unknown;
  for (const provider of providers) {
    const videos = provider.adapter.videos;
    if (!videos) continue;
    try {
      return { provider, job: readUpstreamJob(provider.name, await videos.create(input)) };
    } catch (err) {
      last = err;
      if (!isRetryable(err)) throw err;
    }
  }
  throw last ?? new ApiError(503, "model_unavailable", "no video provider can be called right now");
}

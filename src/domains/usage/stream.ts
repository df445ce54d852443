/**
 * GET /v1/usage/stream: Server-Sent Events of the account's usage events as they commit.
 *
 *   retry: 3000                      sent once: how long EventSource waits before reconnecting
 *   id: <opaque position>            one frame per event, oldest first
 *   event: usage
 *   data: {…the event, as GET /v1/usage/events shows it…}
 *
 *   : heartbeat                      a comment every HEARTBEAT_MS, so proxies keep the line open
 *
 * Resume: a reconnect carrying Last-Event-ID first replays the account's events after that
 * position from the table (at most REPLAY_LIMIT), then continues live. When more than that
 * were missed, the stream sends REPLAY_LIMIT of them and ends; the client reconnects with the
 * last id it saw and receives the next ones, so a resume is bounded per connection yet loses
 * nothing.
 *
 * The id wraps the event's seq, MAC'd for this account like a pagination cursor: seq counts
 * every tenant's events, so showing it would tell one tenant how busy the others are.
 *
 * The live part: one listener per context on ctx.meter.usage (which the meter publishes after
 * commit) hands each event to the streams of ITS account only, off the metered call's path — the
 * events of a turn are queued and delivered on the next one (setImmediate), so the call's own
 * response is not held while thousands of streams are written — and each event's frame is built
 * and encoded once for all of that account's streams (bench/sse.ts measured ~15–20 µs per
 * stream per event when every stream filtered every event inline). Heartbeats are a
 * per-connection interval, not a scheduler job: they belong to one socket and die with it.
 */
import { isoTime } from "../../core/clock.ts";
import { invalidCursor } from "../../core/cursor.ts";
import type { UsageEvent } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import { sessionInForce } from "../auth/index.ts";
import { isSuspended } from "../accounts/index.ts";
import { eventsAfter, eventView, type UsageEventRow } from "./events.ts";

export const HEARTBEAT_MS = 15_000;
export const REPLAY_LIMIT = 1000;
const RETRY_MS = 3000;
/** Frames a client may leave unread before it is cut off (it reconnects and replays from the table). */
const MAX_QUEUED_FRAMES = 1000;

export interface StreamOptions {
  heartbeatMs?: number;
  replayLimit?: number;
}

export interface StreamViewer {
  accountId: string;
  sessionId: string;
}

const idScope = (accountId: string) => `GET /v1/usage/stream\n${accountId}`;

export const streamEventId = (ctx: Context, accountId: string, seq: number): string => ctx.cursors.encode(idScope(accountId), [seq]);

/** The seq a Last-Event-ID stands for; 400 invalid_cursor for one this account was not sent. */
export function parseLastEventId(ctx: Context, accountId: string, value: string): number {
  const [seq, ...rest] = ctx.cursors.decode(idScope(accountId), value.trim());
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0 || rest.length) throw invalidCursor();
  return seq;
}

/** Signing out (or a suspension) ends the account's open streams at their next heartbeat. */
function sessionLive(ctx: Context, viewer: StreamViewer): boolean {
  return sessionInForce(ctx, viewer.sessionId) && !isSuspended(ctx, viewer.accountId);
}

type FrameListener = (seq: number, frame: Uint8Array) => void;

/** The account-keyed fan-out of one context (see the header). */
class UsageFanout {
  private readonly byAccount = new Map<string, Set<FrameListener>>();
  private queued: UsageEvent[] = [];
  private readonly encoder = new TextEncoder();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly ctx: Context) {}

  add(accountId: string, listener: FrameListener): () => void {
    let set = this.byAccount.get(accountId);
    if (!set) this.byAccount.set(accountId, (set = new Set()));
    set.add(listener);
    this.unsubscribe ??= this.ctx.meter.usage.subscribe((e) => this.queue(e));
    return () => {
      set.delete(listener);
      if (!set.size) this.byAccount.delete(accountId);
      if (!this.byAccount.size) {
        this.unsubscribe?.();
        this.unsubscribe = null;
      }
    };
  }

  private queue(e: UsageEvent): void {
    if (!this.byAccount.has(e.account_id)) return;
    if (this.queued.push(e) === 1) setImmediate(() => this.drain());
  }

  private drain(): void {
    const events = this.queued;
    this.queued = [];
    for (const e of events) {
      const listeners = this.byAccount.get(e.account_id);
      if (!listeners) continue;
      const bytes = this.encoder.encode(usageFrame(this.ctx, e.account_id, e));
      for (const listener of listeners) listener(e.seq, bytes);
    }
  }
}

const fanouts = new WeakMap<Context, UsageFanout>();
const fanoutOf = (ctx: Context): UsageFanout => {
  let f = fanouts.get(ctx);
  if (!f) fanouts.set(ctx, (f = new UsageFanout(ctx)));
  return f;
};

const usageFrame = (ctx: Context, accountId: string, e: UsageEvent | UsageEventRow): string =>
  `id: ${streamEventId(ctx, accountId, e.seq)}\nevent: usage\ndata: ${JSON.stringify(eventView(e))}\n\n`;

export function usageStream(ctx: Context, viewer: StreamViewer, resumeAfter: number | null, signal: AbortSignal | undefined, options: StreamOptions = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const replayLimit = options.replayLimit ?? REPLAY_LIMIT;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let lastSeq = resumeAfter ?? 0;
  let unsubscribe = () => {};
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  const finish = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    signal?.removeEventListener("abort", finish);
    try {
      controller.close();
    } catch {
      // already cancelled by the client
    }
  };
  const sendBytes = (bytes: Uint8Array) => {
    if (closed) return;
    controller.enqueue(bytes);
    if ((controller.desiredSize ?? 0) < -MAX_QUEUED_FRAMES) finish();
  };
  const send = (frame: string) => sendBytes(encoder.encode(frame));
  // Events can reach us twice (replayed from the table and published live); seq order decides.
  const emitFrame = (seq: number, bytes: Uint8Array) => {
    if (seq <= lastSeq) return;
    lastSeq = seq;
    sendBytes(bytes);
  };
  const emit = (e: UsageEventRow) => emitFrame(e.seq, encoder.encode(usageFrame(ctx, viewer.accountId, e)));

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      // Subscribe before reading the table, so nothing committed in between is missed.
      unsubscribe = fanoutOf(ctx).add(viewer.accountId, emitFrame);
      send(`retry: ${RETRY_MS}\n: connected ${isoTime(ctx.clock.now())}\n\n`);
      if (resumeAfter !== null) {
        const missed = eventsAfter(ctx, viewer.accountId, resumeAfter, replayLimit + 1);
        for (const row of missed.slice(0, replayLimit)) emit(row);
        if (missed.length > replayLimit) {
          send(`: replay continues: reconnect with the last id\n\n`);
          return finish();
        }
      }
      heartbeat = setInterval(() => {
        if (!sessionLive(ctx, viewer)) {
          send(": session ended\n\n");
          return finish();
        }
        send(": heartbeat\n\n");
      }, options.heartbeatMs ?? HEARTBEAT_MS);
      // A heartbeat timer must never keep a stopping process alive.
      (heartbeat as { unref?: () => void }).unref?.();
      if (signal?.aborted) return finish();
      signal?.addEventListener("abort", finish, { once: true });
    },
    cancel: finish,
  });
}

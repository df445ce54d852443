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
 * The live part listens on ctx.meter.usage, which the meter publishes after commit. Heartbeats
 * are a per-connection interval, not a scheduler job: they belong to one socket and die with it.
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
  const send = (frame: string) => {
    if (closed) return;
    controller.enqueue(encoder.encode(frame));
    if ((controller.desiredSize ?? 0) < -MAX_QUEUED_FRAMES) finish();
  };
  // Events can reach us twice (replayed from the table and published live); seq order decides.
  const emit = (e: UsageEvent | UsageEventRow) => {
    if (e.seq <= lastSeq) return;
    lastSeq = e.seq;
    send(`id: ${streamEventId(ctx, viewer.accountId, e.seq)}\nevent: usage\ndata: ${JSON.stringify(eventView(e))}\n\n`);
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      // Subscribe before reading the table, so nothing committed in between is missed.
      unsubscribe = ctx.meter.usage.subscribe((e) => {
        if (e.account_id === viewer.accountId) emit(e);
      });
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

/**
 * The checkpoint thread of the Checkpointer (checkpointer.ts): its own connection to the
 * database, copying the WAL's committed frames into the database file (PASSIVE checkpoints,
 * which never block the writer) whenever enough of them are waiting, so the fsyncs and page
 * copies of a checkpoint never run on the event loop.
 *
 * How many frames wait is read from the WAL index (`svc.db-shm`), not asked of SQLite: its
 * header holds mxFrame (the last valid frame, offset 16) and its checkpoint info nBackfill (the
 * frames already copied, offset 96), in the machine's byte order (sqlite.org/walformat.html).
 * A torn read is harmless: the figures only decide when to run a checkpoint.
 *
 * A WAL only starts over from its beginning when a writer finds every frame copied, and under
 * steady writes that never happens by itself. So once the WAL passes `restartFrames`, this
 * thread asks the loop to hold its group commits for a moment (`quiesce`), copies the last
 * frames (`final`: a short pass), and reports; the loop's next commit then starts the WAL over.
 */
import { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";

declare const self: Worker;

export interface CheckpointStart {
  type: "start";
  path: string;
  pollMs: number;
  /** Copy once this many frames wait. */
  copyFrames: number;
  /** Ask for a restart once the WAL holds this many frames. */
  restartFrames: number;
}

export type CheckpointCommand = CheckpointStart | { type: "final" } | { type: "stop" };

export type CheckpointReport =
  | { type: "quiesce"; frames: number }
  | { type: "final"; log: number; checkpointed: number; busy: number }
  | { type: "pass"; log: number; checkpointed: number; ms: number }
  | { type: "error"; message: string };

let db: Database | null = null;
let shm: number | null = null;
let timer: ReturnType<typeof setInterval> | null = null;
let settings: CheckpointStart;
/** A restart is asked for again only once the WAL has grown this far (after a restart that did not happen). */
let nextAsk = 0;
let lastAskFrames = 0;
const header = Buffer.alloc(100);

function frames(): { mxFrame: number; nBackfill: number } | null {
  try {
    shm ??= openSync(`${settings.path}-shm`, "r");
    if (readSync(shm, header, 0, 100, 0) < 100) return null;
    return { mxFrame: header.readUInt32LE(16), nBackfill: header.readUInt32LE(96) };
  } catch {
    // No WAL index yet (nothing written), or it went away: look again next time.
    if (shm !== null) closeSync(shm);
    shm = null;
    return null;
  }
}

function checkpoint(): { busy: number; log: number; checkpointed: number } {
  return db!.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get()!;
}

function poll(): void {
  const f = frames();
  if (!f) return;
  // The WAL started over (a restart happened): ask again from the normal threshold.
  if (f.mxFrame < lastAskFrames) nextAsk = 0;
  if (f.mxFrame - f.nBackfill >= settings.copyFrames) {
    const t = performance.now();
    const r = checkpoint();
    self.postMessage({ type: "pass", log: r.log, checkpointed: r.checkpointed, ms: performance.now() - t } satisfies CheckpointReport);
  }
  if (f.mxFrame >= Math.max(settings.restartFrames, nextAsk)) {
    lastAskFrames = f.mxFrame;
    // If this one does not lead to a restart (a reader holds the WAL: Litestream), wait for another half-threshold of growth.
    nextAsk = f.mxFrame + settings.restartFrames / 2;
    self.postMessage({ type: "quiesce", frames: f.mxFrame } satisfies CheckpointReport);
  }
}

self.onmessage = (event: MessageEvent<CheckpointCommand>) => {
  const command = event.data;
  try {
    if (command.type === "start") {
      settings = command;
      db = new Database(command.path, { readwrite: true });
      // A checkpoint waits for no one (PASSIVE); the timeout only covers opening and the WAL-index locks.
      db.run("PRAGMA busy_timeout = 1000");
      timer = setInterval(poll, command.pollMs);
    } else if (command.type === "final") {
      // The loop holds its group commits: copy what is left so its next commit can start the WAL over.
      const r = checkpoint();
      self.postMessage({ type: "final", ...r } satisfies CheckpointReport);
    } else {
      if (timer) clearInterval(timer);
      if (shm !== null) closeSync(shm);
      db?.close();
      db = null;
      self.postMessage({ type: "final", log: 0, checkpointed: 0, busy: 0 } satisfies CheckpointReport);
    }
  } catch (err) {
    self.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) } satisfies CheckpointReport);
  }
};

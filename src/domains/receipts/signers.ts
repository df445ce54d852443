/**
 * The receipt signers over time (table `signers`, migration 0011). The key file
 * (<data dir>/signer.key) holds the one key svc signs with; this table remembers every address
 * it has signed with and the window it was current in, so receipts signed before a rotation
 * stay verifiable (GET /v1/receipts/pubkey, POST /v1/receipts/verify, docs/receipts.md).
 *
 * The table follows the key file: whenever a context opens, the key file's address becomes the
 * current signer if it is not already (a fresh deployment, a rotation that crashed between
 * replacing the file and recording it, a lost key replaced by `svc setup`). A key the table
 * already calls retired is refused: svc never signs with a retired key again.
 */
import { isoTime } from "../../core/clock.ts";
import type { Db } from "../../core/db.ts";
import { Signer } from "../../core/signer.ts";
import type { Context } from "../../context.ts";

export interface SignerRecord {
  address: string;
  validFrom: number;
  /** null for the current signer. */
  validUntil: number | null;
}

/** As GET /v1/receipts/pubkey lists them. */
export interface SignerView {
  address: string;
  valid_from: string;
  valid_until: string | null;
}

interface Row {
  address: string;
  valid_from: number;
  valid_until: number | null;
}

const fromRow = (r: Row): SignerRecord => ({ address: r.address, validFrom: r.valid_from, validUntil: r.valid_until });

export const signerView = (s: SignerRecord): SignerView => ({
  address: s.address,
  valid_from: isoTime(s.validFrom),
  valid_until: s.validUntil === null ? null : isoTime(s.validUntil),
});

/** Every signer, oldest first. */
export function listSigners(db: Db): SignerRecord[] {
  return db.query<Row, []>("SELECT address, valid_from, valid_until FROM signers ORDER BY valid_from, rowid").all().map(fromRow);
}

export function currentSigner(db: Db): SignerRecord | null {
  const row = db.query<Row, []>("SELECT address, valid_from, valid_until FROM signers WHERE valid_until IS NULL").get();
  return row ? fromRow(row) : null;
}

/**
 * When the first signer's window opens: the deployment's setup (its first migration), or its
 * first receipt if that is older (receipts minted before this table existed), or now.
 */
function firstSignerFrom(db: Db, now: number): number {
  const setup = db.query<{ at: number | null }, []>("SELECT min(applied_at) AS at FROM schema_migrations").get()?.at ?? now;
  const firstReceipt = db.query<{ at: number | null }, []>("SELECT min(created_at) AS at FROM receipts").get()?.at ?? now;
  return Math.min(now, setup, firstReceipt);
}

/**
 * Makes `address` the current signer unless it already is: the previous one is retired as of
 * now. Idempotent. Throws for an address that was retired before. Runs in its own write
 * transaction (immediate, so `now` is taken after any settle that holds the lock has committed).
 */
export function recordCurrentSigner(ctx: Context, address: string): { changed: boolean; retired: SignerRecord | null } {
  return ctx.tx.run(() => {
    const current = currentSigner(ctx.db);
    if (current?.address === address) return { changed: false, retired: null };
    const known = ctx.db.query<Row, [string]>("SELECT address, valid_from, valid_until FROM signers WHERE address = ?").get(address);
    if (known) {
      throw new Error(
        `${ctx.paths.signerKey} holds ${address}, a receipt signer retired at ${isoTime(known.valid_until!)}; svc never signs with a retired key. ` +
          "Put the current key back, or move this file away and run `svc setup`, which makes a new key (it becomes the current signer)",
      );
    }
    const clockNow = ctx.clock.now();
    // A window never ends before it began, even if the clock stepped back since.
    const now = current ? Math.max(clockNow, current.validFrom) : clockNow;
    let retired: SignerRecord | null = null;
    if (current) {
      ctx.db.query("UPDATE signers SET valid_until = ? WHERE address = ?").run(now, current.address);
      retired = { ...current, validUntil: now };
    }
    ctx.db.query("INSERT INTO signers (address, valid_from, valid_until) VALUES (?, ?, NULL)").run(address, current ? now : firstSignerFrom(ctx.db, now));
    return { changed: true, retired };
  });
}

/**
 * Called once per context: records the key file's signer (see the file comment) and makes
 * ctx.signer follow rotations made by other processes. The check before each signature is one
 * indexed read of a tiny table; the key file is read again only when the current signer changed.
 */
export function registerSigner(ctx: Context): void {
  const current = ctx.db.prepare<{ address: string }, []>("SELECT address FROM signers WHERE valid_until IS NULL");
  const fileAddress = () => Signer.fromKeyFile(ctx.paths.signerKey, ctx.sealer).address;
  // Usually the file and the record agree and nothing is written. Otherwise the file is read
  // again under the write lock: a rotation replaces it under the same lock, so a process
  // starting during one sees the two agree (ctx.signer, loaded earlier, catches up at first use).
  if (fileAddress() !== current.get()?.address) ctx.tx.run(() => recordCurrentSigner(ctx, fileAddress()));
  ctx.signer.followRotations({
    currentAddress: () => current.get()?.address ?? null,
    loadKey: () => Signer.readKeyFile(ctx.paths.signerKey, ctx.sealer),
  });
}

export interface Rotation {
  signer: SignerView;
  retired: SignerView | null;
}

/**
 * `svc keys rotate-signer`: a new key replaces the key file and becomes the current signer;
 * the old address keeps its window, its key is gone. Processes that are running (svc serve)
 * switch at their next signature (registerSigner), so no restart is needed.
 *
 * The file is replaced inside the write transaction that records it: rotations (and settles)
 * are serialised by SQLite's write lock, so no process ever sees the record name a key other
 * than the file's. A crash after the file is replaced but before the commit leaves the new
 * key in the file and the old one on record; running processes keep signing with the old one
 * (inside its window) and the next context to open records the new one.
 */
export function rotateSigner(ctx: Context): Rotation {
  const { address, retired } = ctx.tx.run(() => {
    const next = Signer.replaceKeyFile(ctx.paths.signerKey, ctx.sealer);
    const outcome = recordCurrentSigner(ctx, next.address);
    ctx.audit.record("cli", "signer.rotate", next.address, { retired: outcome.retired?.address ?? null });
    return { address: next.address, retired: outcome.retired };
  });
  const current = listSigners(ctx.db).find((s) => s.address === address)!;
  return { signer: signerView(current), retired: retired && signerView(retired) };
}

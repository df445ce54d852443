/**
 * The operator audit trail: what was done from the admin API or the CLI, by which channel, to
 * what. Written in the same transaction as the action so the trail cannot disagree with state.
 */
import type { Clock } from "./clock.ts";
import type { Db } from "./db.ts";

/** Who acted: "admin_api" (Bearer admin token) or "cli" (an operator on the host). */
export type Actor = "admin_api" | "cli";

export interface AuditEntry {
  seq: number;
  at: number;
  actor: Actor;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
}

export class AuditLog {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  record(actor: Actor, action: string, target: string | null, detail: Record<string, unknown> = {}): void {
    this.db.query("INSERT INTO audit_log (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)").run(this.clock.now(), actor, action, target, JSON.stringify(detail));
  }

  recent(limit = 50): AuditEntry[] {
    return this.db
      .query<Omit<AuditEntry, "detail"> & { detail: string }, [number]>("SELECT * FROM audit_log ORDER BY seq DESC LIMIT ?")
      .all(limit)
      .map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
  }
}

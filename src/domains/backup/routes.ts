/**
 * GET /v1/admin/backup: replication posture and backup status for the operator, the facts
 * `svc backup status` prints (admin-status.ts). Mounted only with an admin token (module.ts).
 * The other `svc backup` commands (now, verify, configure) and `svc restore` stay CLI-only:
 * they run long, rewrite svc.toml or replace the database, which is the host's job, not an
 * HTTP request's.
 */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { adminBackup } from "./admin-status.ts";
import * as M from "./models.ts";

export function backupAdminRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/admin" })
    .use(guards.admin(ctx))
    .get("/backup", () => adminBackup(ctx), {
      response: { 200: M.AdminBackup },
      detail: {
        summary: "Replication posture and backup status (what `svc backup status` prints): replica redacted, Litestream found, position, newest replica file, problems",
        tags: ["admin", "backup"],
        security: [{ admin: [] }],
      },
    });
}

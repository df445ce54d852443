/** svc restore: bring the database back from the replica (latest, or a point in time). */
import { restoreDatabase, BackupError } from "./service.ts";
import { type Command, CommandFailed, locationOptions, str } from "../../cli/command.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary: "Restore the database from its replica, verified with integrity_check before it is moved into place",
  options: {
    ...locationOptions,
    to: { type: "string", value: "PATH", description: "write the restored database here instead of over the live one" },
    timestamp: { type: "string", value: "T", description: "restore the state as of this time (RFC 3339, e.g. 2026-11-21T18:30:00Z)" },
    force: { type: "boolean", description: "replace an existing file (it is kept beside as .before-restore-…)" },
    replica: { type: "string", value: "URL", description: "restore from this replica instead of the configured one" },
  },
  details: `Refuses to overwrite an existing database without --force, and always refuses while
svc serve is running on it (stop it first: systemctl stop svc).`,
  async run({ values }, host) {
    const config = host.configFrom(values);
    try {
      const r = await restoreDatabase(config, { to: str(values.to), timestamp: str(values.timestamp), force: Boolean(values.force), replica: str(values.replica) });
      console.log(`restored ${r.target} from ${r.replica}${r.timestamp ? ` as of ${r.timestamp}` : " (latest)"}: integrity_check ok, ${r.tables} tables`);
      if (r.replaced) console.log(`the previous file is kept at ${r.replaced}`);
    } catch (err) {
      if (err instanceof BackupError) throw new CommandFailed(err.message);
      throw err;
    }
  },
};

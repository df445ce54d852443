/** The console area's svc.toml section (console.*; docs/console.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const ConsoleSection = T.Object(
  {
    /** Serve the web console at /console. Off: every /console path answers 404. */
    enabled: T.Boolean(),
    /** An operator's console sign-in (admin token exchanged for a cookie) ends after this long unused (seconds). */
    operator_idle_secs: T.Integer({ minimum: 60, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    console: Static<typeof ConsoleSection>;
  }
}

export const consoleConfig: ConfigPart = {
  sections: { console: { schema: ConsoleSection, default: { enabled: true, operator_idle_secs: 30 * 60 } } },
  env: [{ name: "SVC_CONSOLE_ENABLED", path: "console.enabled", type: "boolean" }],
};

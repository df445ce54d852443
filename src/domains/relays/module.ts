/**
 * Relays: one-time, sealed share links (/v1/relays/*, /v1/relay-access/*; docs/relays.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";

export const relaysModule = defineModule({ name: "relays" });

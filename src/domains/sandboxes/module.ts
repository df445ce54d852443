/**
 * Code sandboxes: metered one-shot runs and persistent sessions under bubblewrap.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";

export const sandboxesModule = defineModule({ name: "sandboxes" });

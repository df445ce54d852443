/**
 * Legacy plans: a dead-man's switch releasing sealed content to beneficiaries when check-ins stop (/v1/legacy/*; docs/legacy.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";

export const legacyModule = defineModule({ name: "legacy" });

/**
 * Asset attestations: metered checks of an asset against its evidence, versioned records, refresh, public verification view (/v1/attestations/*, /v1/assets/:asset_id/verification; docs/attestations.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";

export const attestationsModule = defineModule({ name: "attestations" });

/** The detector types a guardrail may use, by name (POST /v1/guardrails detectors[].type). */
import { blocklist } from "./blocklist.ts";
import { promptInjection } from "./prompt-injection.ts";
import { pii, secrets } from "./shapes.ts";
import type { DetectorType } from "./types.ts";

export const DETECTORS = { pii, secrets, prompt_injection: promptInjection, blocklist } as const satisfies Record<string, DetectorType>;
export type DetectorName = keyof typeof DETECTORS;
export const DETECTOR_NAMES = Object.keys(DETECTORS) as DetectorName[];
export type { Detector } from "./types.ts";

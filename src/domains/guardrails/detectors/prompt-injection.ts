/**
 * The prompt_injection detector: heuristics for the phrasings of known injection attacks —
 * instructions to ignore or forget the earlier ones, to reveal the system prompt, to drop the
 * rules ("developer mode", "DAN", "jailbreak"), and chat-template role markers smuggled into
 * text (<|im_start|>system, [INST], "### System:"). Each pattern is a phrase, not a word, so
 * ordinary text that mentions "instructions" or "system" is left alone.
 *
 * Limits, stated so nobody mistakes this for more: it catches the common English phrasings
 * and template markers; a paraphrase, another language, an encoding (base64, homoglyphs) or an
 * instruction hidden in a document's meaning passes. Use it as a tripwire with `block` or
 * `allow` (to count attempts), not as the only defence; docs/guardrails.md says the same.
 */
import { invalidField } from "../../../core/errors.ts";
import { patternDetector } from "./patterns.ts";
import type { DetectorType } from "./types.ts";

const PHRASES: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|override|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*(?:previous|prior|above|earlier|preceding|foregoing|original|system)\s+(?:instructions?|prompts?|rules?|directions?|guidelines?|messages?|context)\b/gi,
  /\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|(?:said\s+)?(?:above|before))\b/gi,
  /\b(?:reveal|print|show|repeat|output|display|leak|tell\s+me)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+|entire\s+|hidden\s+|initial\s+|original\s+)?(?:system\s+prompt|system\s+message|instructions|initial\s+prompt|hidden\s+prompt)\b/gi,
  /\byou\s+are\s+(?:now\s+)?(?:in\s+)?(?:DAN|developer\s+mode|jailbreak(?:ed)?\s+mode|an?\s+unrestricted\s+(?:AI|model|assistant))\b/gi,
  /\b(?:enable|enter|activate)\s+(?:developer|god|jailbreak|DAN)\s+mode\b/gi,
  /\b(?:act|behave|respond)\s+as\s+(?:if\s+)?(?:you\s+(?:have|had)\s+no|an?\s+(?:AI|assistant|model)\s+(?:with(?:out)?\s+no|without))\s+(?:restrictions|rules|filters|guidelines|limits)\b/gi,
  /\bdo\s+anything\s+now\b/gi,
  /\bnew\s+(?:system\s+)?instructions?\s*:/gi,
  /<\|(?:im_start|im_end|system|endoftext)\|>/gi,
  /\[\/?INST\]|<<\/?SYS>>/g,
  /^\s*#{2,}\s*(?:system|assistant)\s*:/gim,
];

export const promptInjection: DetectorType = {
  describe: "phrasings of known prompt-injection attacks and smuggled chat-template markers (heuristic: English, unencoded)",
  compile(options, field) {
    for (const k of Object.keys(options)) throw invalidField(`${field}.${k}`, "is not an option of prompt_injection (it takes none)");
    return patternDetector("prompt_injection", PHRASES);
  },
};

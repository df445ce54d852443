/**
 * An engine spec: the pinned catalogue model, the system prompt prepended to every call, and
 * the parameters applied to it. spec_sha256 is the sha256 of the spec's canonical JSON
 * (core/canonical-json.ts) exactly as the API returns it, so anyone holding the spec can
 * recompute it; parameters are integers (temperature in thousandths) because canonical JSON
 * holds integers only.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { sha256Hex } from "../../core/secrets.ts";

export interface EngineParameters {
  /** Sampling temperature × 1000 (700 → 0.7). */
  temperature_milli?: number;
  /** Nucleus sampling top_p × 1000. */
  top_p_milli?: number;
  /** Output token limit of each call. */
  max_tokens?: number;
}

export interface EngineSpec {
  model: string;
  system_prompt: string;
  parameters: EngineParameters;
}

const PARAMETER_KEYS = ["temperature_milli", "top_p_milli", "max_tokens"] as const;

/** The stored form: parameters always an object, holding only the keys that were set. */
export function normalizeSpec(input: { model: string; system_prompt: string; parameters?: EngineParameters }): EngineSpec {
  const parameters: EngineParameters = {};
  for (const key of PARAMETER_KEYS) {
    const value = input.parameters?.[key];
    if (value !== undefined) parameters[key] = value;
  }
  return { model: input.model, system_prompt: input.system_prompt, parameters };
}

export const specCanonical = (spec: EngineSpec): string => canonicalJson(spec);

export const specSha256 = (spec: EngineSpec): string => sha256Hex(specCanonical(spec));

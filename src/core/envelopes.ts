/**
 * The three list shapes of spec §2.1. Which one an endpoint uses is fixed per endpoint by the
 * spec (not by rule), so each list route picks one of these helpers explicitly.
 */
import { invalidField } from "./errors.ts";

/** 1. Bare array: the body is the array. */
export const bareArray = <T>(rows: T[]): T[] => rows;

/** 2. List object: {object: "list", data}; only /v1/batches adds has_more. */
export function listObject<T>(data: T[], hasMore?: boolean): { object: "list"; data: T[]; has_more?: boolean } {
  return hasMore === undefined ? { object: "list", data } : { object: "list", data, has_more: hasMore };
}

/** 3. Named-key envelope: the array under a key named for the resource, plus context fields. */
export function namedList<K extends string, T, E extends Record<string, unknown>>(key: K, rows: T[], extra: E = {} as E): Record<K, T[]> & E {
  return { [key]: rows, ...extra } as Record<K, T[]> & E;
}

export interface LimitRule {
  min: number;
  max: number;
  default: number;
}

/**
 * Reads ?limit=. Missing → the endpoint's default; not a whole number or below the minimum →
 * 400 naming the field; above the maximum → the maximum (spec §8 states ranges, and one
 * endpoint is called out as "not clamped", so the others clamp).
 */
export function parseLimit(raw: string | number | undefined | null, rule: LimitRule, field = "limit"): number {
  if (raw === undefined || raw === null || raw === "") return rule.default;
  const text = String(raw);
  if (!/^\d+$/.test(text)) throw invalidField(field, `must be a whole number between ${rule.min} and ${rule.max}`);
  const n = Number(text);
  if (n < rule.min) throw invalidField(field, `must be at least ${rule.min}`);
  return Math.min(n, rule.max);
}

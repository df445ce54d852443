/** Reading a harness's OpenAPI document in tests that check what an area declares. */
import type { Harness } from "./harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema is any JSON
export type Schema = Record<string, any>;

/** The app's document, read without the harness's served-vs-declared check. */
export const openapiOf = async (h: Harness) => (await (await h.app.handle(new Request("http://svc.test/openapi.json"))).json()) as { paths: Record<string, Record<string, Schema>> };

/** Paths (dotted, [] for array items) of object schemas that allow keys they do not list. */
export function openObjects(schema: Schema, at = "body"): string[] {
  if (!schema || typeof schema !== "object") return [];
  const found: string[] = [];
  if (schema.type === "object" && schema.additionalProperties !== false) found.push(at);
  for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) found.push(...openObjects(sub, `${at}.${key}`));
  if (schema.items) found.push(...openObjects(schema.items, `${at}[]`));
  for (const sub of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) found.push(...openObjects(sub, at));
  return found;
}

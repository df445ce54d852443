/**
 * The scope vocabulary (spec §5 leaves names unshown; docs/scopes.md is the reference). A key
 * holds a set of scopes; "*" is all of them. A route that needs a scope refuses a key without
 * it with 403 missing_scope naming it.
 */
import { forbidden, invalidField } from "../../core/errors.ts";

export const SCOPES = {
  inference: "chat completions, messages, responses, embeddings, images, videos, files and batches",
  sandboxes: "code sandboxes: one-shot runs and sessions",
  state: "sealed key-value state",
  memory: "memory collections: add documents, search",
  mailbox: "agent mailboxes: send and read messages",
  mcp: "the remote MCP server and the MCP gateway",
  "billing:read": "credit balance and usage (GET /v1/credit, usage)",
  "keys:delegate": "mint bounded child keys (POST /v1/keys/delegate)",
  pay: "payment requests and their settlement",
  post: "agent post: paid cross-account mail",
  records: "verifiable records: judge, sealed calls, notary, attestations, NAV, benchmarks",
  services: "call paid services of the marketplace",
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL = "*";

/** Validates and normalises a requested scope list (sorted, unique); "*" alone means all. */
export function parseScopes(value: string[] | undefined, field = "scopes"): string[] {
  if (value === undefined) return [ALL];
  const set = new Set(value.map((s) => s.trim()));
  if (set.has(ALL)) {
    if (set.size > 1) throw invalidField(field, `"*" already means every scope; give it alone`);
    return [ALL];
  }
  if (set.size === 0) throw invalidField(field, "must name at least one scope (or \"*\")");
  for (const s of set) if (!(s in SCOPES)) throw invalidField(field, `"${s}" is not a scope (see docs/scopes.md: ${Object.keys(SCOPES).join(", ")})`);
  return [...set].sort();
}

export const hasScope = (granted: string[], needed: Scope): boolean => granted.includes(ALL) || granted.includes(needed);

/** True when every scope in `child` is held by `parent`. */
export const scopesWithin = (child: string[], parent: string[]): boolean => parent.includes(ALL) || (!child.includes(ALL) && child.every((s) => parent.includes(s)));

export const missingScope = (scope: Scope) =>
  forbidden("missing_scope", `this API key lacks the "${scope}" scope this route needs`, { scope });

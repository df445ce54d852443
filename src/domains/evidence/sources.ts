/**
 * A source of evidence as a record keeps it: checked once when it is named (the fields its kind
 * needs, a URL the outbound guard accepts syntactically, a configured chain), its credential and
 * any inline document sealed to the account, and a source_ref that is safe to show and publish —
 * a URL without its query (query strings carry API keys), a chain and contract, or the sha256 of
 * an inline document.
 */
import type { Static } from "@sinclair/typebox";
import { invalidField } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { chainNamed } from "../billing/index.ts";
import { parseTargetUrl, TargetRefused } from "../webhooks/index.ts";
import type { EvidenceSourceInput, EvidenceSourceView, SourceKind } from "./models.ts";

/** What a record stores (JSON in its own row): everything needed to retrieve again, secrets sealed. */
export interface StoredSource {
  kind: SourceKind;
  label: string | null;
  source_ref: string;
  url: string | null;
  pointer: string | null;
  chain: string | null;
  token: string | null;
  credential_sealed: string | null;
  document_sealed: string | null;
}

const aad = (accountId: string, what: "credential" | "document") => `evidence-source:${what}:${accountId}`;

const MAX_DOCUMENT_BYTES = 1024 * 1024;

function requireField<T>(value: T | undefined, field: string, kind: string): T {
  if (value === undefined || value === "") throw invalidField(field, `is required for a ${kind} source`);
  return value;
}

function checkedUrl(raw: string, field: string): URL {
  try {
    return parseTargetUrl(raw);
  } catch (err) {
    if (err instanceof TargetRefused) throw invalidField(field, err.message);
    throw err;
  }
}

function checkedPointer(pointer: string, field: string): string {
  if (pointer !== "" && !pointer.startsWith("/")) throw invalidField(field, 'must be a JSON pointer (RFC 6901), e.g. "/reserves/usd"');
  return pointer;
}

/**
 * Checks a source as a caller named it and seals what must not be stored in the clear.
 * `field` prefixes the names in errors ("source", "price_sources[1]").
 */
export function prepareSource(ctx: Context, accountId: string, input: Static<typeof EvidenceSourceInput>, field = "source"): StoredSource {
  const f = (name: string) => `${field}.${name}`;
  const base: StoredSource = {
    kind: input.kind,
    label: input.label ?? null,
    source_ref: "",
    url: null,
    pointer: null,
    chain: null,
    token: null,
    credential_sealed: input.credential ? ctx.sealer.seal(input.credential, aad(accountId, "credential")) : null,
    document_sealed: null,
  };
  switch (input.kind) {
    case "custodian":
    case "price": {
      const url = checkedUrl(requireField(input.url, f("url"), input.kind), f("url"));
      const pointer = checkedPointer(requireField(input.pointer, f("pointer"), input.kind), f("pointer"));
      return { ...base, url: url.href, pointer, source_ref: `${url.origin}${url.pathname}` };
    }
    case "third_party_attestation": {
      if (input.url !== undefined && input.document_b64 !== undefined) throw invalidField(f("document_b64"), "give either url or document_b64, not both");
      const pointer = input.pointer === undefined ? null : checkedPointer(input.pointer, f("pointer"));
      if (input.document_b64 !== undefined) {
        if (!/^[A-Za-z0-9+/]+={0,2}$/.test(input.document_b64)) throw invalidField(f("document_b64"), "must be base64");
        const bytes = Buffer.from(input.document_b64, "base64");
        if (bytes.length > MAX_DOCUMENT_BYTES) throw invalidField(f("document_b64"), `must decode to at most ${MAX_DOCUMENT_BYTES} bytes`);
        return {
          ...base,
          pointer,
          source_ref: `document:sha256:${sha256Hex(bytes)}`,
          document_sealed: ctx.sealer.seal(bytes, aad(accountId, "document")),
        };
      }
      const url = checkedUrl(requireField(input.url, f("url"), "third_party_attestation (or document_b64)"), f("url"));
      return { ...base, url: url.href, pointer, source_ref: `${url.origin}${url.pathname}` };
    }
    case "erc20_supply": {
      const chain = chainNamed(ctx.config, requireField(input.chain, f("chain"), input.kind), f("chain"));
      const token = requireField(input.token, f("token"), input.kind).toLowerCase();
      return { ...base, chain: chain.name, token, source_ref: `erc20:${chain.name}:${token}` };
    }
  }
}

/** The source as responses show it. */
export const sourceView = (s: StoredSource): Static<typeof EvidenceSourceView> => ({
  kind: s.kind,
  label: s.label,
  source_ref: s.source_ref,
  pointer: s.pointer,
  chain: s.chain,
  token: s.token,
  has_credential: s.credential_sealed !== null,
});

/** A stored source with some fields replaced (PATCH of an endpoint or credential): re-checked as a whole. */
export function patchSource(ctx: Context, accountId: string, current: StoredSource, patch: { url?: string; credential?: string; pointer?: string }, field = "source"): StoredSource {
  const next = prepareSource(
    ctx,
    accountId,
    {
      kind: current.kind,
      ...(current.label ? { label: current.label } : {}),
      ...((patch.url ?? current.url) ? { url: patch.url ?? current.url! } : {}),
      ...((patch.pointer ?? current.pointer) !== null ? { pointer: patch.pointer ?? current.pointer! } : {}),
      ...(current.chain ? { chain: current.chain } : {}),
      ...(current.token ? { token: current.token } : {}),
      ...(patch.credential ? { credential: patch.credential } : {}),
    },
    field,
  );
  return {
    ...next,
    credential_sealed: patch.credential ? next.credential_sealed : current.credential_sealed,
    document_sealed: current.document_sealed,
  };
}

export const openCredential = (ctx: Context, accountId: string, s: StoredSource): string | null =>
  s.credential_sealed ? ctx.sealer.open(s.credential_sealed, aad(accountId, "credential")).toString("utf8") : null;

export const openDocument = (ctx: Context, accountId: string, s: StoredSource): Buffer | null =>
  s.document_sealed ? ctx.sealer.open(s.document_sealed, aad(accountId, "document")) : null;

/**
 * TypeBox models of /v1/kya: a closed request body (an unknown field is refused and named) and
 * the exact shapes served (service.ts builds them), so the OpenAPI document describes what is
 * served.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { HANDLE_PATTERN, HANDLE_RULE } from "../passport/index.ts";
import { Address, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Id = (description: string) => t.String({ minLength: 1, maxLength: 100, description });

export const IssueBody = t.Object(
  {
    handle: t.String({ pattern: HANDLE_PATTERN, error: `must be a handle: ${HANDLE_RULE}`, description: `the public name the credential is published under: ${HANDLE_RULE}` }),
    key_id: t.Optional(Id("an API key of this account the agent acts with (give this or mandate_id)")),
    mandate_id: t.Optional(Id("a mandate of this account the agent spends under (give this or key_id)")),
    agent_name: t.Optional(
      Nullable(t.String({ minLength: 1, maxLength: L.MAX_AGENT_NAME_CHARS, pattern: "\\S", error: `must be 1 to ${L.MAX_AGENT_NAME_CHARS} characters, not all whitespace` })),
    ),
  },
  { ...closed, description: "exactly one of key_id and mandate_id" },
);

export const IdParams = t.Object({ id: Id("kya_…") });
export const HandleParams = t.Object({ handle: t.String({ minLength: 1, maxLength: 100 }) });

const BindingKind = t.Union([t.Literal("key"), t.Literal("mandate")]);
const Status = t.Union([t.Literal("active"), t.Literal("superseded"), t.Literal("revoked")], {
  description: "active: the handle's current credential; superseded: a newer one was issued for the handle; revoked: DELETE ended it",
});
const Names = Nullable(t.Array(t.String(), { description: "null: any" }));

/** What the credential decodes to (canonical JSON, base64url). */
export const CredentialPayload = t.Object(
  {
    v: t.Literal(1),
    type: t.Literal("kya-credential"),
    id: t.String(),
    handle: t.String(),
    agent_name: Nullable(t.String()),
    binding: t.Object({ kind: BindingKind, id: t.String() }, closed),
    key: t.Object({ id: t.String(), prefix: t.String(), kind: t.String() }, { ...closed, description: "the API key the agent acts with (a mandate's own key)" }),
    may: t.Object(
      {
        scopes: t.Array(t.String()),
        monthly_cap_micro_usd: Nullable(MicroUsd()),
        total_cap_micro_usd: Nullable(MicroUsd({ description: "the key's lifetime cap; a mandate's budget" })),
        allowed_models: Names,
        allowed_services: Names,
        valid_from: Nullable(Time),
        valid_until: Nullable(Time),
        purpose: Nullable(t.String({ description: "a mandate's purpose; null for a key" })),
      },
      { ...closed, description: "what the agent may do, as the key's controls (enforced by svc's meter) stood when issued" },
    ),
    operator_wallet: Nullable(Address),
    supersedes: Nullable(t.String()),
    trust_model: t.String(),
    issued_at: Time,
  },
  closed,
);

export const Credential = t.Object(
  {
    id: t.String(),
    handle: t.String(),
    status: Status,
    binding: t.Object({ kind: BindingKind, id: t.String() }, closed),
    binding_status: t.String({ description: "the bound key's or mandate's status now (keys: active, frozen, expired, revoked, rotated; mandates: active, expired, revoked, exhausted, not_yet_valid)" }),
    credential: Statement,
    signature: Signature,
    signer: Address,
    payload: CredentialPayload,
    supersedes: Nullable(t.String()),
    superseded_by: Nullable(t.String()),
    issued_at: Time,
    superseded_at: Nullable(Time),
    revoked_at: Nullable(Time),
    public_url: t.String(),
    verify: t.String(),
  },
  closed,
);

export const CredentialList = t.Object({ credentials: t.Array(Credential, { maxItems: L.LIST_CAP, description: `newest first, at most ${L.LIST_CAP}` }) }, closed);

/**
 * KYA ("know your agent") credentials: a signed statement (core/statements.ts: base64url
 * canonical JSON, EIP-191) of what an agent may do — the scopes, caps, allow-lists and validity
 * of the API key or mandate it is bound to, read through the keys and mandates front doors —
 * and which wallet operates it, published under a handle. A new credential for a handle
 * supersedes its active one; DELETE revokes. The meter enforces the controls; the credential
 * states them so a counterparty can check them without an account here.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { primaryWallet } from "../auth/index.ts";
import { getKeyRow, keyInForce, keyView } from "../keys/index.ts";
import { getMandate } from "../mandates/index.ts";
import { HANDLE_PATTERN, HANDLE_RULE, passportHandleOwner } from "../passport/index.ts";
import { LIST_CAP } from "./limits.ts";
// Types only: the shapes served are declared once, in models.ts.
import type { Credential, CredentialPayload } from "./models.ts";
import { activeOf, type BindingKind, credentialById, credentialsOf, handleOwner, insertCredential, type KyaRow, latestOf, markRevoked, markSuperseded } from "./store.ts";

export type CredentialView = Static<typeof Credential>;
type PayloadView = Static<typeof CredentialPayload>;

export const TRUST_MODEL =
  "svc states what the bound key or mandate allowed when the credential was issued; its meter enforces those controls on every call. " +
  "A later change (revocation, expiry, rotation) shows in binding_status and in the credential's status, not in the signed payload: check both at GET /v1/kya/public/{handle}.";

const HANDLE = new RegExp(HANDLE_PATTERN);

export interface IssueInput {
  handle: string;
  keyId?: string;
  mandateId?: string;
  agentName?: string | null;
}

type May = PayloadView["may"];
interface Bound {
  kind: BindingKind;
  id: string;
  key: PayloadView["key"];
  may: May;
}

/** A key of the account that can act now, or may again (frozen); another account's answers 404 like an unknown one. */
function boundKey(ctx: Context, accountId: string, keyId: string): Bound {
  const row = getKeyRow(ctx, keyId);
  if (!row || row.account_id !== accountId) throw notFound("API key");
  const k = keyView(ctx, row);
  if (k.status !== "active" && k.status !== "frozen") {
    const hint = k.status === "rotated" ? `; bind its replacement ${keyInForce(ctx, keyId).id}` : "";
    throw new ApiError(409, "binding_inactive", `the key is ${k.status}: a credential states what an agent may do, and this key can do nothing${hint}`, { param: "key_id" });
  }
  return {
    kind: "key",
    id: k.id,
    key: { id: k.id, prefix: k.prefix, kind: k.kind },
    may: {
      scopes: k.scopes,
      monthly_cap_micro_usd: k.monthly_cap_micro_usd,
      total_cap_micro_usd: k.total_cap_micro_usd,
      allowed_models: k.allowed_models,
      allowed_services: k.allowed_services,
      valid_from: k.not_before,
      valid_until: k.expires_at,
      purpose: null,
    },
  };
}

function boundMandate(ctx: Context, accountId: string, mandateId: string): Bound {
  // getMandate answers 404 for another account's mandate, like an unknown one.
  const m = getMandate(ctx, accountId, mandateId);
  if (m.status !== "active" && m.status !== "not_yet_valid") {
    throw new ApiError(409, "binding_inactive", `the mandate is ${m.status}: a credential states what an agent may do, and this mandate allows nothing more`, { param: "mandate_id" });
  }
  return {
    kind: "mandate",
    id: m.id,
    key: { id: m.key_id, prefix: m.key_prefix, kind: "mandate" },
    may: {
      scopes: m.scopes,
      monthly_cap_micro_usd: m.monthly_cap_micro_usd,
      total_cap_micro_usd: m.budget_micro_usd,
      allowed_models: m.allowed_models,
      allowed_services: m.allowed_services,
      valid_from: m.valid_from,
      valid_until: m.valid_until,
      purpose: m.purpose,
    },
  };
}

function binding(ctx: Context, accountId: string, input: IssueInput): Bound {
  if (input.keyId !== undefined && input.mandateId !== undefined) throw invalidField("mandate_id", "give key_id or mandate_id, not both");
  if (input.keyId !== undefined) return boundKey(ctx, accountId, input.keyId);
  if (input.mandateId !== undefined) return boundMandate(ctx, accountId, input.mandateId);
  throw invalidField("key_id", "give the key_id or the mandate_id the credential is bound to");
}

/** The bound key's or mandate's status now (a credential outlives neither silently). */
function bindingStatus(ctx: Context, row: KyaRow): string {
  if (row.binding_kind === "mandate") return getMandate(ctx, row.account_id, row.binding_id).status;
  const key = getKeyRow(ctx, row.binding_id);
  return key ? keyView(ctx, key).status : "revoked";
}

const publicUrl = (ctx: Context, handle: string) => `${ctx.config.public_url}/v1/kya/public/${handle}`;
const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));

function view(ctx: Context, row: KyaRow): CredentialView {
  return {
    id: row.id,
    handle: row.handle,
    status: row.status,
    binding: { kind: row.binding_kind, id: row.binding_id },
    binding_status: bindingStatus(ctx, row),
    credential: row.credential,
    signature: row.signature,
    signer: row.signer,
    payload: JSON.parse(Buffer.from(row.credential, "base64url").toString("utf8")) as PayloadView,
    supersedes: row.supersedes,
    superseded_by: row.superseded_by,
    issued_at: isoTime(row.issued_at),
    superseded_at: iso(row.superseded_at),
    revoked_at: iso(row.revoked_at),
    public_url: publicUrl(ctx, row.handle),
    verify:
      `POST ${ctx.config.public_url}/v1/receipts/verify with {"receipt": credential, "signature": signature}, or recover the EIP-191 signer of the credential string with any Ethereum library ` +
      `and compare it with GET ${ctx.config.public_url}/v1/receipts/pubkey; base64url-decode the credential to read the payload. Then check status and binding_status here: a signed credential cannot say it was revoked later.`,
  };
}

/**
 * POST /v1/kya/credentials: states the bound key's or mandate's controls and the operator's
 * wallet, signs them, and makes the credential the handle's active one — the previous active
 * credential of the handle, if any, becomes superseded in the same transaction.
 */
export function issueCredential(ctx: Context, accountId: string, input: IssueInput): CredentialView {
  if (!HANDLE.test(input.handle)) throw invalidField("handle", `must be a handle: ${HANDLE_RULE}`);
  const agentName = input.agentName?.trim() || null;
  const bound = binding(ctx, accountId, input);
  return ctx.tx.run(() => {
    const holder = handleOwner(ctx, input.handle) ?? passportHandleOwner(ctx, input.handle);
    if (holder !== null && holder !== accountId) throw new ApiError(409, "handle_taken", `the handle ${input.handle} belongs to another account`, { param: "handle" });
    const now = ctx.clock.now();
    const previous = activeOf(ctx, input.handle);
    const id = newId("kya");
    const payload: PayloadView = {
      v: 1,
      type: "kya-credential",
      id,
      handle: input.handle,
      agent_name: agentName,
      binding: { kind: bound.kind, id: bound.id },
      key: bound.key,
      may: bound.may,
      operator_wallet: primaryWallet(ctx, accountId),
      supersedes: previous?.id ?? null,
      trust_model: TRUST_MODEL,
      issued_at: isoTime(now),
    };
    const signed = signStatement(ctx.signer, { ...payload });
    if (previous) markSuperseded(ctx, previous.id, id, now);
    insertCredential(ctx, {
      id,
      account_id: accountId,
      handle: input.handle,
      binding_kind: bound.kind,
      binding_id: bound.id,
      credential: signed.statement,
      signature: signed.signature,
      signer: signed.signer,
      supersedes: previous?.id ?? null,
      issued_at: now,
    });
    return view(ctx, credentialById(ctx, id)!);
  });
}

export const listCredentials = (ctx: Context, accountId: string): CredentialView[] => credentialsOf(ctx, accountId, LIST_CAP).map((r) => view(ctx, r));

/** DELETE /v1/kya/credentials/:id: revoked (idempotent); another account's id answers 404 like an unknown one. */
export function revokeCredential(ctx: Context, accountId: string, id: string): CredentialView {
  return ctx.tx.run(() => {
    const row = credentialById(ctx, id);
    if (!row || row.account_id !== accountId) throw notFound("credential");
    markRevoked(ctx, id, ctx.clock.now());
    return view(ctx, credentialById(ctx, id)!);
  });
}

/** GET /v1/kya/public/:handle: the handle's newest credential, revoked or not, so a revocation is seen; 404 when none was issued. */
export function publicCredential(ctx: Context, handle: string): CredentialView {
  const row = latestOf(ctx, handle.toLowerCase());
  if (!row) throw notFound("credential");
  return view(ctx, row);
}

/** The account a handle belongs to in KYA, for the passport's handle check (one namespace for both). */
export const kyaHandleOwner = (ctx: Context, handle: string): string | null => handleOwner(ctx, handle);

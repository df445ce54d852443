/**
 * Passports: an account's track record, computed from its own history (stats.ts), stated in a
 * signed credential (core/statements.ts: base64url canonical JSON, EIP-191), committed to with
 * sha256 (commitment.ts) and anchored in svc's Merkle roots (anchoring.ts). One passport per
 * account, under a handle fixed at its first mint; POST again to refresh the figures.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { walletAddressesOf } from "../auth/index.ts";
import { kyaHandleOwner } from "../kya/index.ts";
import { credentialAnchor, PASSPORT_MERKLE_ALG } from "./anchoring.ts";
import { COMMITMENT_ALG, commitmentOf } from "./commitment.ts";
import { DIRECTORY_CAP, HANDLE_PATTERN, HANDLE_RULE } from "./limits.ts";
// Types only: the shapes served are declared once, in models.ts.
import type { CredentialPayload, Directory, DirectoryEntry, Passport, Proof } from "./models.ts";
import { passportStats, verifyNewReceipts } from "./stats.ts";
import { credentialById, type CredentialRecord, insertCredential, passportByHandle, passportOfAccount, type PassportRecord, rankedPassports, savePassport } from "./store.ts";

export type PassportView = Static<typeof Passport>;
export type PayloadView = Static<typeof CredentialPayload>;

export const TRUST_MODEL =
  "A provable track record, never a trust score: every figure is a count or a sum of this account's own signed receipts, runs, anchors, usage events, mandates and keys " +
  "when the credential was issued, stated and signed by svc. It rates nothing and predicts nothing; check what it states, and judge for yourself.";

export const ORDERED_BY = "stats.verified_runs desc, stats.receipts desc, handle asc";

const HANDLE = new RegExp(HANDLE_PATTERN);

const base = (ctx: Context) => ctx.config.public_url;
const passportUrl = (ctx: Context, handle: string) => `${base(ctx)}/v1/passport/${handle}`;
const proofUrl = (ctx: Context, handle: string) => `${passportUrl(ctx, handle)}/proof`;
const identityUrl = (ctx: Context, handle: string) => `${base(ctx)}/v1/registry/identity/${handle}`;

export interface MintInput {
  handle: string;
  agentName: string;
  wallet: string | null;
}

function linkedWallet(ctx: Context, accountId: string, wallet: string | null): string | null {
  if (wallet === null) return null;
  const lower = wallet.toLowerCase();
  // svc signs the credential: it states only a wallet the account proved it holds (signed in with it).
  if (!walletAddressesOf(ctx, accountId).some((w) => w.toLowerCase() === lower)) throw invalidField("wallet", "must be a wallet linked to this account (GET /v1/auth/wallets)");
  return toChecksumAddress(lower);
}

/** The handle the account may use: its own passport's, or a free one no other account holds here or in KYA. */
function claimHandle(ctx: Context, accountId: string, existing: PassportRecord | null, handle: string): void {
  if (!HANDLE.test(handle)) throw invalidField("handle", `must be a handle: ${HANDLE_RULE}`);
  if (existing) {
    if (existing.handle !== handle) {
      throw new ApiError(409, "handle_fixed", `this account's passport is ${existing.handle}; a passport keeps the handle of its first mint`, { param: "handle", handle: existing.handle });
    }
    return;
  }
  const holder = passportByHandle(ctx, handle)?.accountId ?? kyaHandleOwner(ctx, handle);
  if (holder !== null && holder !== accountId) throw new ApiError(409, "handle_taken", `the handle ${handle} belongs to another account`, { param: "handle" });
}

/**
 * POST /v1/passport: checks the receipts minted since the last mint, computes the figures,
 * signs the credential and stores it as the passport's current one; the next anchoring pass
 * puts its commitment under a root. Answers the passport and whether it was created.
 */
export function mintPassport(ctx: Context, accountId: string, input: MintInput): { passport: PassportView; created: boolean } {
  const agentName = input.agentName.trim();
  if (!agentName) throw invalidField("agent_name", "must not be blank");
  const existing = passportOfAccount(ctx, accountId);
  claimHandle(ctx, accountId, existing, input.handle);
  const wallet = linkedWallet(ctx, accountId, input.wallet);
  // Signatures are checked outside the write transaction: it can take a while, and only reads.
  const verification = verifyNewReceipts(ctx, accountId, existing ?? { checkedSeq: 0, failedRuns: [] });

  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    const stats = passportStats(ctx, accountId, verification);
    const payload: PayloadView = { v: 1, type: "agent-passport", handle: input.handle, agent_name: agentName, wallet, stats, trust_model: TRUST_MODEL, issued_at: isoTime(now) };
    const signed = signStatement(ctx.signer, { ...payload });
    const id = newId("pcred");
    insertCredential(ctx, { id, accountId, handle: input.handle, credential: signed.statement, signature: signed.signature, signer: signed.signer, commitment: commitmentOf({ ...payload }), issuedAt: now });
    const record: PassportRecord = {
      accountId,
      handle: input.handle,
      agentName,
      wallet,
      credentialId: id,
      verifiedRuns: stats.verified_runs,
      receipts: stats.receipts,
      checkedSeq: verification.checkedSeq,
      failedRuns: verification.failedRuns,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    savePassport(ctx, record);
    return { passport: passportView(ctx, record), created: existing === null };
  });
}

const decoded = (c: CredentialRecord): PayloadView => JSON.parse(Buffer.from(c.credential, "base64url").toString("utf8")) as PayloadView;

function current(ctx: Context, p: PassportRecord): CredentialRecord {
  const c = credentialById(ctx, p.credentialId);
  // Written in the same transaction as the passport row; its absence is a broken database.
  if (!c) throw new Error(`passport ${p.handle} points at a missing credential ${p.credentialId}`);
  return c;
}

function verifyText(ctx: Context): string {
  return (
    `Check the signature: POST ${base(ctx)}/v1/receipts/verify with {"receipt": credential, "signature": signature} (it accepts any statement svc signs), ` +
    `or recover the EIP-191 signer of the credential string with any Ethereum library and compare it with GET ${base(ctx)}/v1/receipts/pubkey. ` +
    "Then base64url-decode the credential to read the payload, recompute the commitment as commitment_alg says, and follow proof_url to fold it up to an anchored root."
  );
}

function passportView(ctx: Context, p: PassportRecord): PassportView {
  const c = current(ctx, p);
  const payload = decoded(c);
  const anchor = credentialAnchor(ctx, c);
  return {
    handle: p.handle,
    agent_name: p.agentName,
    wallet: p.wallet,
    stats: payload.stats,
    credential: c.credential,
    signature: c.signature,
    signer: c.signer,
    updated_at: isoTime(p.updatedAt),
    commitment: c.commitment,
    commitment_alg: COMMITMENT_ALG,
    anchor: { state: anchor.state, root: anchor.root, memo: anchor.block?.memo ?? null, anchors: anchor.block?.anchors ?? [] },
    proof_url: proofUrl(ctx, p.handle),
    identity_url: identityUrl(ctx, p.handle),
    trust_model: TRUST_MODEL,
    verify: verifyText(ctx),
  };
}

/** Unknown handles answer 404; handles are lowercase, so a lookup in any case finds the same passport. */
function byHandle(ctx: Context, handle: string): PassportRecord {
  const p = passportByHandle(ctx, handle.toLowerCase());
  if (!p) throw notFound("passport");
  return p;
}

export const getPassport = (ctx: Context, handle: string): PassportView => passportView(ctx, byHandle(ctx, handle));

/** GET /v1/passport: the public directory, ranked by verified runs then receipts, at most DIRECTORY_CAP. */
export function passportDirectory(ctx: Context): Static<typeof Directory> {
  const agents: Static<typeof DirectoryEntry>[] = rankedPassports(ctx, DIRECTORY_CAP).map((p) => {
    const c = current(ctx, p);
    return { handle: p.handle, agent_name: p.agentName, wallet: p.wallet, stats: decoded(c).stats, commitment: c.commitment, updated_at: isoTime(p.updatedAt), passport_url: passportUrl(ctx, p.handle) };
  });
  return { agents, count: agents.length, ordered_by: ORDERED_BY };
}

/** GET /v1/passport/:handle/proof: everything needed to check the current credential without trusting svc's database. */
export function passportProof(ctx: Context, handle: string): Static<typeof Proof> {
  const p = byHandle(ctx, handle);
  const c = current(ctx, p);
  const a = credentialAnchor(ctx, c);
  return {
    handle: p.handle,
    credential: c.credential,
    signature: c.signature,
    signer: c.signer,
    payload: decoded(c),
    commitment: c.commitment,
    commitment_alg: COMMITMENT_ALG,
    state: a.state,
    leaf_hash: a.leafHash,
    root: a.root,
    leaf_index: a.leafIndex,
    tree_size: a.treeSize,
    siblings: a.siblings,
    merkle_alg: PASSPORT_MERKLE_ALG,
    anchor: a.block,
    verify:
      `1. Signature: ${verifyText(ctx)} ` +
      "2. Commitment: sha256 of the canonical JSON of the decoded payload (commitment_alg) must equal commitment. " +
      "3. Inclusion: from leaf_hash = SHA-256(0x00 || commitment as ASCII hex), fold siblings (RFC 9162 §2.1.3.2) at leaf_index in a tree of tree_size leaves; the result must equal root. " +
      `4. Anchors: check each as its verify says, or GET ${base(ctx)}/v1/anchors/{root}. While state is pending there is no root yet: the next anchoring pass makes one.`,
  };
}

/** The passport's owner, for handle checks of other areas (KYA shares the namespace). */
export const passportHandleOwner = (ctx: Context, handle: string): string | null => passportByHandle(ctx, handle)?.accountId ?? null;

/** What identity.ts builds the registration file from. */
export function identitySource(ctx: Context, handle: string): { passport: PassportRecord; credential: CredentialRecord; urls: { passport: string; proof: string } } {
  const p = byHandle(ctx, handle);
  return { passport: p, credential: current(ctx, p), urls: { passport: passportUrl(ctx, p.handle), proof: proofUrl(ctx, p.handle) } };
}

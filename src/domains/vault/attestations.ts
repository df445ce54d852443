/**
 * Attesters and their statements. The issuer registers a third party (an auditor, a custodian,
 * counsel…) with the wallet it signs with; a statement is recorded by the issuer with the
 * attester's EIP-191 signature over the statement bound to the asset (signedMessage below), and
 * svc records it only when the signature recovers to that wallet. The attester needs no svc
 * account: svc checks a signature, it does not vouch for the words. Statement text is sealed at
 * rest; the chain and the vault_attestation event name the fact, never the text.
 */
import { isoTime } from "../../core/clock.ts";
import { invalidField, notFound } from "../../core/errors.ts";
import { recoverMessageAddress, toChecksumAddress } from "../../core/eip191.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { type AssetRow, ownAsset } from "./assets.ts";
import { appendEntry } from "./chain.ts";
import { notify } from "./events.ts";
import { ATTESTER_ROLES } from "./limits.ts";

export const TRUST_MODEL =
  "Each statement is signed by its attester's own key (EIP-191 personal_sign over signed_message). svc recorded it only after checking that the signature recovers to the wallet the issuer registered for that attester. " +
  "svc vouches for that check alone: not for who the attester is, nor for the truth of what the statement says.";

/** What the attester signs: the statement, bound to the asset so it cannot be replayed on another. */
export const signedMessage = (assetId: string, statement: string): string => `svc vault attestation\nasset: ${assetId}\n\n${statement}`;

interface AttesterRow {
  id: string;
  asset_id: string;
  account_id: string;
  name: string;
  roles: string;
  wallet: string;
  created_at: number;
}

interface AttestationRow {
  id: string;
  asset_id: string;
  account_id: string;
  attester_id: string;
  statement_sealed: string;
  statement_sha256: string;
  signature: string;
  signer: string;
  chain_seq: number;
  created_at: number;
}

const attesterView = (a: AttesterRow) => ({
  id: a.id,
  asset_id: a.asset_id,
  name: a.name,
  roles: JSON.parse(a.roles) as string[],
  wallet: toChecksumAddress(a.wallet),
  created_at: isoTime(a.created_at),
});

export type AttesterView = ReturnType<typeof attesterView>;

const sealAad = (a: { id: string; asset_id: string }) => JSON.stringify(["vault_attestations", a.asset_id, a.id]);

function attestationView(ctx: Context, r: AttestationRow, attester: AttesterRow) {
  const statement = ctx.sealer.openText(r.statement_sealed, sealAad(r));
  return {
    id: r.id,
    asset_id: r.asset_id,
    attester_id: r.attester_id,
    attester_name: attester.name,
    roles: JSON.parse(attester.roles) as string[],
    statement,
    statement_sha256: r.statement_sha256,
    signed_message: signedMessage(r.asset_id, statement),
    signature: r.signature,
    signer: toChecksumAddress(r.signer),
    chain_seq: r.chain_seq,
    recorded_at: isoTime(r.created_at),
  };
}

export type AttestationView = ReturnType<typeof attestationView>;

export function addAttester(ctx: Context, accountId: string, assetId: string, input: { name: string; roles: string[]; wallet: string }): AttesterView {
  const roles = [...new Set(input.roles)];
  for (const role of roles) if (!(ATTESTER_ROLES as readonly string[]).includes(role)) throw invalidField("roles", `unknown role "${role}"; one of ${ATTESTER_ROLES.join(", ")}`);
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    const id = newId("vatr");
    ctx.db
      .query("INSERT INTO vault_attesters (id, asset_id, account_id, name, roles, wallet, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(id, asset.id, accountId, input.name, JSON.stringify(roles), input.wallet.toLowerCase(), ctx.clock.now());
    appendEntry(ctx, asset.id, "attester_added", { attester_id: id });
    return attesterView(attesterOf(ctx, asset, id));
  });
}

/** Spec §2.1 {attesters, asset_id, roles}: roles is the vocabulary an attester's roles come from. Oldest first, not capped (§8). */
export function listAttesters(ctx: Context, accountId: string, assetId: string) {
  const asset = ownAsset(ctx, accountId, assetId);
  const rows = ctx.db.query<AttesterRow, [string]>("SELECT * FROM vault_attesters WHERE asset_id = ? ORDER BY created_at, rowid").all(asset.id);
  return { attesters: rows.map(attesterView), asset_id: asset.id, roles: [...ATTESTER_ROLES] };
}

function attesterOf(ctx: Context, asset: AssetRow, id: string): AttesterRow {
  const row = ctx.db.query<AttesterRow, [string, string]>("SELECT * FROM vault_attesters WHERE id = ? AND asset_id = ?").get(id, asset.id);
  if (!row) throw notFound("vault attester");
  return row;
}

/**
 * Records an attester's signed statement. The same signature again answers the record already
 * made (created: false) and appends nothing.
 */
export function recordAttestation(
  ctx: Context,
  accountId: string,
  assetId: string,
  input: { attesterId: string; statement: string; signature: string },
): { attestation: AttestationView; created: boolean } {
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    const attester = attesterOf(ctx, asset, input.attesterId);
    let signer: string;
    try {
      signer = recoverMessageAddress(signedMessage(asset.id, input.statement), input.signature).toLowerCase();
    } catch (err) {
      throw invalidField("signature", `cannot be recovered (${err instanceof Error ? err.message : String(err)})`);
    }
    if (signer !== attester.wallet) {
      throw invalidField("signature", `recovers to ${toChecksumAddress(signer)}, not the attester's wallet ${toChecksumAddress(attester.wallet)} (sign signed_message as docs/vault.md states)`);
    }
    const existing = ctx.db.query<AttestationRow, [string, string]>("SELECT * FROM vault_attestations WHERE signature = ? AND asset_id = ?").get(input.signature.toLowerCase(), asset.id);
    if (existing) return { attestation: attestationView(ctx, existing, attester), created: false };
    const id = newId("vatt");
    const { seq } = appendEntry(ctx, asset.id, "attestation_recorded", { attestation_id: id, attester_id: attester.id });
    const sealed = ctx.sealer.seal(input.statement, sealAad({ id, asset_id: asset.id }));
    const row = ctx.db
      .query<AttestationRow, (string | number)[]>(
        `INSERT INTO vault_attestations (id, asset_id, account_id, attester_id, statement_sealed, statement_sha256, signature, signer, chain_seq, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(id, asset.id, accountId, attester.id, sealed, sha256Hex(input.statement), input.signature.toLowerCase(), signer, seq, ctx.clock.now())!;
    notify(ctx, "vault_attestation", accountId, [], {
      asset_id: asset.id,
      attestation_id: id,
      attester_id: attester.id,
      roles: JSON.parse(attester.roles) as string[],
      chain_seq: seq,
      at: isoTime(row.created_at),
    });
    return { attestation: attestationView(ctx, row, attester), created: true };
  });
}

/** The asset's statements, oldest first, not capped (§8), with the trust model they are read under. */
export function attestationsOf(ctx: Context, asset: AssetRow): AttestationView[] {
  const attesters = new Map(
    ctx.db
      .query<AttesterRow, [string]>("SELECT * FROM vault_attesters WHERE asset_id = ?")
      .all(asset.id)
      .map((a) => [a.id, a]),
  );
  return ctx.db
    .query<AttestationRow, [string]>("SELECT * FROM vault_attestations WHERE asset_id = ? ORDER BY created_at, rowid")
    .all(asset.id)
    .map((r) => attestationView(ctx, r, attesters.get(r.attester_id)!));
}

export function listAttestations(ctx: Context, accountId: string, assetId: string) {
  const asset = ownAsset(ctx, accountId, assetId);
  return { attestations: attestationsOf(ctx, asset), asset_id: asset.id, trust_model: TRUST_MODEL };
}

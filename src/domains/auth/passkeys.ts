/**
 * Passkeys (WebAuthn), an alternative sign-in for an existing account (spec §5 rule 1): an
 * account signed in another way registers passkeys; anyone holding one signs in to that
 * account. A passkey never creates an account.
 *
 * @simplewebauthn/server does the cryptography and the ceremony checks (type, origin, rpIdHash,
 * user presence, signature, counter). svc adds what the library leaves to its caller
 * (ARCHITECTURE.md §8): challenges it issued, for this purpose and (for registration) this
 * account, used once and within five minutes; the credential looked up by id and its counter
 * saved after every sign-in, so a replayed or cloned assertion is refused; at most 20 passkeys
 * per account (spec §8).
 *
 * Challenges are checked during verification and consumed atomically, in the transaction that
 * stores the credential or issues the session (as SIWE does with its nonce): of two requests
 * carrying one challenge, exactly one succeeds, and a refused attempt does not burn it.
 */
import { randomBytes } from "node:crypto";
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { COSEALG } from "@simplewebauthn/server/helpers";
import { accountSuspended } from "../../core/auth.ts";
import { isoTime } from "../../core/clock.ts";
import { ApiError, conflict, invalidField, notFound } from "../../core/errors.ts";
import { isId, newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { isSuspended } from "../accounts/index.ts";
import { type IssuedSession, issueSession } from "./sessions.ts";
import { primaryWallet } from "./wallets.ts";

/** Spec §8: passkeys, 20 per account. */
export const PASSKEY_LIMIT = 20;
/** Same lifetime as a SIWE nonce; also the ceremony timeout we ask browsers for. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
const PRUNE_EVERY_MS = 3_600_000;
/** ES256 (every platform authenticator) and RS256 (Windows Hello). What we offer is what we accept. */
const ALGORITHMS = [COSEALG.ES256, COSEALG.RS256];
const DEFAULT_NAME = "Passkey";
const ID_PREFIX = "pk";

type Purpose = "register" | "login";
type DeviceType = "single_device" | "multi_device";

interface Row {
  id: string;
  account_id: string;
  credential_id: string;
  public_key: Uint8Array;
  counter: number;
  transports: string;
  device_type: DeviceType;
  backed_up: number;
  aaguid: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

/** What the API shows of a passkey: never the public key, which nobody but svc needs. */
export interface PasskeyView {
  id: string;
  name: string;
  credential_id: string;
  aaguid: string;
  device_type: DeviceType;
  backed_up: boolean;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

const view = (r: Row): PasskeyView => ({
  id: r.id,
  name: r.name,
  credential_id: r.credential_id,
  aaguid: r.aaguid,
  device_type: r.device_type,
  backed_up: r.backed_up === 1,
  transports: JSON.parse(r.transports) as string[],
  created_at: isoTime(r.created_at),
  last_used_at: r.last_used_at === null ? null : isoTime(r.last_used_at),
});

// ── errors ───────────────────────────────────────────────────────────────────────────────

const limitReached = (): ApiError =>
  conflict("passkey_limit_reached", `an account may have at most ${PASSKEY_LIMIT} passkeys; delete one before adding another`);

/** Registration is by a signed-in owner, so the reason is theirs to read. */
const registrationRefused = (reason: string): ApiError =>
  new ApiError(400, "invalid_passkey_registration", `response: ${reason}`, { param: "response" });

const STALE_CHALLENGE = `the challenge was not issued here for this ceremony, was already used, or is older than ${CHALLENGE_TTL_MS / 60_000} minutes; ask for new options`;

/**
 * Sign-in is public: one answer for every failure (unknown credential, bad signature, stale
 * challenge, counter…), so a caller learns nothing about which credentials exist. The reason
 * goes to the log for the operator.
 */
function signInRefused(ctx: Context, reason: string): ApiError {
  ctx.log.info("passkey sign-in refused", { reason });
  return new ApiError(401, "invalid_passkey", "the passkey could not be verified; ask for new login options and try again");
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

// ── challenges ───────────────────────────────────────────────────────────────────────────

function rememberChallenge(ctx: Context, challenge: string, purpose: Purpose, accountId: string | null): void {
  const now = ctx.clock.now();
  ctx.db
    .query("INSERT INTO webauthn_challenges (challenge, purpose, account_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
    .run(challenge, purpose, accountId, now, now + CHALLENGE_TTL_MS);
}

/** Issued by svc for this purpose (and account), unused and unexpired — checked, not consumed. */
function challengeOpen(ctx: Context, challenge: string, purpose: Purpose, accountId: string | null): boolean {
  return (
    ctx.db
      .query("SELECT 1 FROM webauthn_challenges WHERE challenge = ? AND purpose = ? AND account_id IS ? AND used_at IS NULL AND expires_at > ?")
      .get(challenge, purpose, accountId, ctx.clock.now()) !== null
  );
}

/** Marks the challenge used; exactly one caller wins a race. */
function consumeChallenge(ctx: Context, challenge: string, purpose: Purpose, accountId: string | null): boolean {
  const now = ctx.clock.now();
  return (
    ctx.db
      .query(
        `UPDATE webauthn_challenges SET used_at = ?1
         WHERE challenge = ?2 AND purpose = ?3 AND account_id IS ?4 AND used_at IS NULL AND expires_at > ?1
         RETURNING challenge`,
      )
      .get(now, challenge, purpose, accountId) !== null
  );
}

/**
 * A challenge check for the library to call with the challenge from clientDataJSON. It
 * remembers the value (we consume it later) and whether it was our check that failed, so the
 * caller can say so in our words rather than the library's.
 */
function challengeCheck(ctx: Context, purpose: Purpose, accountId: string | null) {
  const seen = { value: null as string | null, refused: false };
  const check = (challenge: string): boolean => {
    seen.value = challenge;
    seen.refused = !challengeOpen(ctx, challenge, purpose, accountId);
    return !seen.refused;
  };
  return { seen, check };
}

export function prunePasskeyChallenges(ctx: Context): number {
  return ctx.db.query("DELETE FROM webauthn_challenges WHERE expires_at <= ?").run(ctx.clock.now()).changes;
}

/** Expired challenges are useless (used or not); drop them hourly. */
export function registerPasskeyJobs(ctx: Context): void {
  ctx.scheduler.every("auth.prune_passkey_challenges", PRUNE_EVERY_MS, () => {
    prunePasskeyChallenges(ctx);
  });
}

// ── registration ─────────────────────────────────────────────────────────────────────────

const countPasskeys = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM passkeys WHERE account_id = ?").get(accountId)!.n;

const findUserHandle = (ctx: Context, accountId: string): string | null =>
  ctx.db.query<{ h: string }, [string]>("SELECT user_handle AS h FROM webauthn_users WHERE account_id = ?").get(accountId)?.h ?? null;

/** The account's WebAuthn user handle (base64url), created on first use. */
function ensureUserHandle(ctx: Context, accountId: string): string {
  ctx.db
    .query("INSERT INTO webauthn_users (account_id, user_handle, created_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO NOTHING")
    .run(accountId, randomBytes(32).toString("base64url"), ctx.clock.now());
  return findUserHandle(ctx, accountId)!;
}

/** Options for navigator.credentials.create(); the challenge is remembered for this account. */
export async function registrationOptions(ctx: Context, accountId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  if (countPasskeys(ctx, accountId) >= PASSKEY_LIMIT) throw limitReached();
  const existing = ctx.db
    .query<{ credential_id: string; transports: string }, [string]>("SELECT credential_id, transports FROM passkeys WHERE account_id = ? ORDER BY created_at")
    .all(accountId);
  // The account has no username; its wallet is what the owner recognises in a passkey picker.
  const label = primaryWallet(ctx, accountId) ?? accountId;
  const options = await generateRegistrationOptions({
    rpName: ctx.config.passkeys.rp_name,
    rpID: ctx.config.passkeys.rp_id,
    userID: new Uint8Array(Buffer.from(ensureUserHandle(ctx, accountId), "base64url")),
    userName: label,
    userDisplayName: label,
    timeout: CHALLENGE_TTL_MS,
    attestationType: "none",
    // The same authenticator twice would be one key under two names.
    excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: JSON.parse(c.transports) as string[] })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  rememberChallenge(ctx, options.challenge, "register", accountId);
  return options;
}

/** A display name: trimmed, 1–64 characters, no control characters; absent → the default. */
export function passkeyName(value: string | undefined): string {
  if (value === undefined) return DEFAULT_NAME;
  const name = value.trim();
  if (!name) throw invalidField("name", "must not be blank");
  if (name.length > 64) throw invalidField("name", "must be at most 64 characters");
  if (/\p{Cc}/u.test(name)) throw invalidField("name", "must not contain control characters");
  return name;
}

export interface RegisterInput {
  response: RegistrationResponseJSON;
  name?: string;
}

/** Verifies the attestation against the challenge issued to this account and stores the credential. */
export async function registerPasskey(ctx: Context, accountId: string, input: RegisterInput): Promise<PasskeyView> {
  const name = passkeyName(input.name);
  const { rp_id, origin } = ctx.config.passkeys;
  const challenge = challengeCheck(ctx, "register", accountId);
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge.check,
      expectedOrigin: origin,
      expectedRPID: rp_id,
      // We ask for "preferred" user verification, which by definition accepts an authenticator
      // that cannot verify the user (a security key without a PIN); presence is still required.
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (err) {
    throw registrationRefused(challenge.seen.refused ? STALE_CHALLENGE : reasonOf(err));
  }
  if (!verification.verified || challenge.seen.value === null) throw registrationRefused("the attestation could not be verified");
  const info = verification.registrationInfo;
  // The library takes the credential from authenticatorData; the id the client claims must be the same one.
  if (input.response.id !== info.credential.id) throw registrationRefused("id does not match the credential in attestationObject");
  const seenChallenge = challenge.seen.value;

  const row = ctx.tx.run(() => {
    if (!consumeChallenge(ctx, seenChallenge, "register", accountId)) throw registrationRefused(STALE_CHALLENGE);
    // Checked again here: two option requests at 19 passkeys must not end at 21.
    if (countPasskeys(ctx, accountId) >= PASSKEY_LIMIT) throw limitReached();
    if (ctx.db.query("SELECT 1 FROM passkeys WHERE credential_id = ?").get(info.credential.id)) {
      throw conflict("passkey_already_registered", "this passkey is already registered");
    }
    return ctx.db
      .query<Row, [string, string, string, Uint8Array, number, string, DeviceType, number, string, string, number]>(
        `INSERT INTO passkeys (id, account_id, credential_id, public_key, counter, transports, device_type, backed_up, aaguid, name, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        newId(ID_PREFIX),
        accountId,
        info.credential.id,
        info.credential.publicKey,
        info.credential.counter,
        JSON.stringify(info.credential.transports ?? []),
        info.credentialDeviceType === "multiDevice" ? "multi_device" : "single_device",
        info.credentialBackedUp ? 1 : 0,
        info.aaguid,
        name,
        ctx.clock.now(),
      )!;
  });
  return view(row);
}

// ── sign-in ──────────────────────────────────────────────────────────────────────────────

/** Options for navigator.credentials.get(): discoverable credentials, so no allow-list. */
export async function loginOptions(ctx: Context): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: ctx.config.passkeys.rp_id,
    allowCredentials: [],
    userVerification: "preferred",
    timeout: CHALLENGE_TTL_MS,
  });
  rememberChallenge(ctx, options.challenge, "login", null);
  return options;
}

export interface ClientMeta {
  userAgent: string | null;
  ip: string | null;
}

/**
 * Verifies an assertion and opens a session for the passkey's account. The new counter is
 * saved with a compare-and-set, so two sign-ins racing with one counter value cannot both win.
 */
export async function signInWithPasskey(ctx: Context, response: AuthenticationResponseJSON, meta: ClientMeta): Promise<IssuedSession> {
  const row = ctx.db.query<Row, [string]>("SELECT * FROM passkeys WHERE credential_id = ?").get(response.id);
  if (!row) throw signInRefused(ctx, "unknown credential");
  // A discoverable credential returns the user handle it was created with; it must be this account's.
  const handle = response.response.userHandle;
  if (handle && handle !== findUserHandle(ctx, row.account_id)) throw signInRefused(ctx, "user handle does not match the credential's account");

  const { rp_id, origin } = ctx.config.passkeys;
  const challenge = challengeCheck(ctx, "login", null);
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.check,
      expectedOrigin: origin,
      expectedRPID: rp_id,
      credential: { id: row.credential_id, publicKey: new Uint8Array(row.public_key), counter: row.counter, transports: JSON.parse(row.transports) as string[] },
      requireUserVerification: false, // see registerPasskey
    });
  } catch (err) {
    // The library refuses a counter that did not grow (unless both are 0): a replay or a clone.
    throw signInRefused(ctx, challenge.seen.refused ? "stale challenge" : reasonOf(err));
  }
  if (!verification.verified || challenge.seen.value === null) throw signInRefused(ctx, "signature does not verify");
  const info = verification.authenticationInfo;
  const seenChallenge = challenge.seen.value;

  const outcome = ctx.tx.run((): { refused: string } | { suspended: true } | { issued: IssuedSession } => {
    if (!consumeChallenge(ctx, seenChallenge, "login", null)) return { refused: "stale challenge" };
    const saved = ctx.db
      .query("UPDATE passkeys SET counter = ?1, backed_up = ?2 WHERE id = ?3 AND (counter < ?1 OR (counter = 0 AND ?1 = 0))")
      .run(info.newCounter, info.credentialBackedUp ? 1 : 0, row.id);
    if (saved.changes === 0) return { refused: "counter did not increase" };
    // Refused only now, after the signature: telling a stranger that a credential's account is
    // suspended would confirm the credential exists. The counter is kept either way.
    if (isSuspended(ctx, row.account_id)) return { suspended: true };
    ctx.db.query("UPDATE passkeys SET last_used_at = ? WHERE id = ?").run(ctx.clock.now(), row.id);
    return { issued: issueSession(ctx, { accountId: row.account_id, method: "passkey", walletAddress: null, userAgent: meta.userAgent, ip: meta.ip }) };
  });
  if ("refused" in outcome) throw signInRefused(ctx, outcome.refused);
  if ("suspended" in outcome) throw accountSuspended();
  return outcome.issued;
}

// ── management ───────────────────────────────────────────────────────────────────────────

export function listPasskeys(ctx: Context, accountId: string): PasskeyView[] {
  return ctx.db.query<Row, [string]>("SELECT * FROM passkeys WHERE account_id = ? ORDER BY created_at, id").all(accountId).map(view);
}

/** Unknown ids and other accounts' passkeys answer the same 404. */
export function renamePasskey(ctx: Context, accountId: string, id: string, name: string): PasskeyView {
  const clean = passkeyName(name);
  const row = isId(id, ID_PREFIX)
    ? ctx.db.query<Row, [string, string, string]>("UPDATE passkeys SET name = ? WHERE id = ? AND account_id = ? RETURNING *").get(clean, id, accountId)
    : null;
  if (!row) throw notFound("passkey");
  return view(row);
}

/** Sessions already opened with the passkey stay open; POST /v1/auth/logout-all ends them. */
export function deletePasskey(ctx: Context, accountId: string, id: string): void {
  const gone = isId(id, ID_PREFIX) && ctx.db.query("DELETE FROM passkeys WHERE id = ? AND account_id = ?").run(id, accountId).changes === 1;
  if (!gone) throw notFound("passkey");
}

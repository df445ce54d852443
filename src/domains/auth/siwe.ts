/**
 * Sign-In with Ethereum (EIP-4361). The `siwe` package parses the message; everything it does
 * not check, svc checks here (ARCHITECTURE.md §8): domain and scheme against the configured
 * public URL, the uri's origin, the chain id, the age of issuedAt, expirationTime and
 * notBefore, the signature (recovered with svc's own EIP-191 code, so no ethers), and a nonce
 * svc issued and nobody used, consumed atomically and last, so a refused attempt does not
 * burn it.
 */
import { randomBytes } from "node:crypto";
import { SiweMessage } from "siwe";
import { isoTime } from "../../core/clock.ts";
import { recoverMessageAddress, toChecksumAddress } from "../../core/eip191.ts";
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";

/** EIP-4361 nonces live five minutes (spec §8). */
export const NONCE_TTL_MS = 5 * 60_000;
/** Clocks disagree a little; a message "issued" this far in the future is still fine. */
const CLOCK_SKEW_MS = 60_000;
const NONCE_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export type SiweRefusal =
  | "malformed_message"
  | "domain_mismatch"
  | "scheme_mismatch"
  | "uri_mismatch"
  | "unsupported_version"
  | "chain_not_allowed"
  | "issued_in_future"
  | "message_too_old"
  | "message_expired"
  | "not_yet_valid"
  | "invalid_signature"
  | "invalid_nonce"
  | "statement_mismatch";

/** 401 siwe_rejected with the reason, or 400 for a message that is not EIP-4361 at all. */
export const siweRejected = (reason: SiweRefusal, message: string): ApiError =>
  new ApiError(reason === "malformed_message" ? 400 : 401, "siwe_rejected", message, { reason });

export function issueNonce(ctx: Context): { nonce: string; expires_at: string } {
  const bytes = randomBytes(24);
  let nonce = "";
  for (const b of bytes) nonce += NONCE_ALPHABET[b % NONCE_ALPHABET.length];
  const now = ctx.clock.now();
  ctx.db.query("INSERT INTO siwe_nonces (nonce, created_at, expires_at) VALUES (?, ?, ?)").run(nonce, now, now + NONCE_TTL_MS);
  return { nonce, expires_at: isoTime(now + NONCE_TTL_MS) };
}

/** Marks the nonce used if svc issued it, it is unexpired and unused; one caller wins a race. */
function consumeNonce(ctx: Context, nonce: string): boolean {
  const now = ctx.clock.now();
  return ctx.db.query("UPDATE siwe_nonces SET used_at = ?1 WHERE nonce = ?2 AND used_at IS NULL AND expires_at > ?1").run(now, nonce).changes === 1;
}

export function pruneNonces(ctx: Context): number {
  return ctx.db.query("DELETE FROM siwe_nonces WHERE expires_at < ?").run(ctx.clock.now() - NONCE_TTL_MS).changes;
}

export interface VerifiedSiwe {
  /** EIP-55 checksummed. */
  address: string;
  chainId: number;
  statement: string | null;
}

/**
 * What the siwe parser says that a client can act on: its "line N: …" findings. The rest of its
 * message is the grammar engine's state object and line counters, which mean nothing outside it.
 */
function parserReason(err: unknown): string {
  const text = err instanceof Error ? err.message : Array.isArray(err) ? err.join("\n") : String(err);
  const findings = [...new Set(text.split("\n").filter((line) => /^line \d+: /.test(line.trim())).map((line) => line.trim()))];
  return findings.length ? findings.slice(0, 5).join("; ") : "it does not follow the format (a domain line, the address line, then the fields, one per line)";
}

function parse(message: string): SiweMessage {
  try {
    return new SiweMessage(message);
  } catch (err) {
    throw siweRejected("malformed_message", `message is not a valid EIP-4361 message: ${parserReason(err)}`);
  }
}

const timeOf = (value: string | undefined, field: string): number | null => {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw siweRejected("malformed_message", `${field} is not a date-time`);
  return ms;
};

/**
 * Checks a signed SIWE message end to end and consumes its nonce. `statementMustInclude`
 * binds a message to a purpose (linking a wallet names the account it joins).
 */
export function verifySiwe(ctx: Context, input: { message: string; signature: string }, options: { statementMustInclude?: string } = {}): VerifiedSiwe {
  const msg = parse(input.message);
  const site = new URL(ctx.config.public_url);
  const now = ctx.clock.now();

  if (msg.domain !== site.host) throw siweRejected("domain_mismatch", `message is for ${msg.domain}, this service is ${site.host}`);
  if (msg.scheme && `${msg.scheme}:` !== site.protocol) throw siweRejected("scheme_mismatch", `message scheme ${msg.scheme} does not match ${site.protocol.replace(":", "")}`);
  let uriOrigin: string;
  try {
    uriOrigin = new URL(msg.uri).origin;
  } catch {
    throw siweRejected("malformed_message", "uri is not a URL");
  }
  if (uriOrigin !== site.origin) throw siweRejected("uri_mismatch", `uri ${msg.uri} is not on ${site.origin}`);
  if (msg.version !== "1") throw siweRejected("unsupported_version", "only SIWE version 1 is supported");
  if (!ctx.config.auth.siwe_chain_ids.includes(Number(msg.chainId))) {
    throw siweRejected("chain_not_allowed", `chain ${msg.chainId} is not accepted here (accepted: ${ctx.config.auth.siwe_chain_ids.join(", ")})`);
  }

  const issuedAt = timeOf(msg.issuedAt, "issuedAt");
  if (issuedAt === null) throw siweRejected("malformed_message", "issuedAt is required");
  if (issuedAt > now + CLOCK_SKEW_MS) throw siweRejected("issued_in_future", "issuedAt is in the future");
  if (now - issuedAt > ctx.config.auth.siwe_max_age_secs * 1000) throw siweRejected("message_too_old", `message was issued more than ${ctx.config.auth.siwe_max_age_secs}s ago; sign a fresh one`);
  const expires = timeOf(msg.expirationTime, "expirationTime");
  if (expires !== null && expires <= now) throw siweRejected("message_expired", "message has expired");
  const notBefore = timeOf(msg.notBefore, "notBefore");
  if (notBefore !== null && notBefore > now + CLOCK_SKEW_MS) throw siweRejected("not_yet_valid", "message is not valid yet (notBefore)");

  if (options.statementMustInclude && !(msg.statement ?? "").includes(options.statementMustInclude)) {
    throw siweRejected("statement_mismatch", `the statement must include "${options.statementMustInclude}"`);
  }

  let signer: string;
  try {
    signer = recoverMessageAddress(input.message, input.signature);
  } catch (err) {
    throw siweRejected("invalid_signature", `signature cannot be verified: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (signer.toLowerCase() !== msg.address.toLowerCase()) throw siweRejected("invalid_signature", "signature is not by the address in the message");

  if (!consumeNonce(ctx, msg.nonce)) throw siweRejected("invalid_nonce", "nonce was not issued by this service, has expired, or was already used; get a new one from POST /v1/auth/nonce");
  return { address: toChecksumAddress(msg.address), chainId: Number(msg.chainId), statement: msg.statement ?? null };
}

/**
 * TypeBox models of the auth routes (routes.ts, passkey-routes.ts): request bodies and the
 * response shapes the OpenAPI document shows. Responses are closed: what is listed is what is
 * served. Two kinds of object stay open, each said where it is declared:
 * - the WebAuthn responses browsers send (browsers add fields over time; svc checks what it
 *   reads and lets the rest through to the library);
 * - WebAuthn `extensions`, an open-ended dictionary by definition.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";

const open = { additionalProperties: true } as const;
const closed = { additionalProperties: false } as const;

const Time = t.String({ format: "date-time" });
const ADDRESS_PATTERN = "^0x[0-9a-fA-F]{40}$";
const ADDRESS_REASON = "must be a 0x-prefixed 20-byte hex address";
/** An Ethereum address as served: EIP-55 checksummed. */
const Address = t.String({ pattern: ADDRESS_PATTERN, description: "0x address, EIP-55 checksummed" });

// ── sign-in with Ethereum and sessions ───────────────────────────────────────────────────

/**
 * A SIWE message and its signature. The signature's format is left to the verifier, which
 * answers 401 siwe_rejected invalid_signature for one it cannot use (docs/auth.md).
 */
export const SignedMessage = t.Object(
  {
    message: t.String({ minLength: 1, maxLength: 4096, description: "the EIP-4361 message exactly as signed" }),
    signature: t.String({ minLength: 1, maxLength: 200, description: "0x-prefixed 65-byte personal_sign signature" }),
  },
  closed,
);

export const Nonce = t.Object(
  {
    nonce: t.String({ pattern: "^[A-Za-z0-9]{8,}$", description: "single use; put it in the EIP-4361 message" }),
    expires_at: Time,
  },
  closed,
);

export const Capabilities = t.Object(
  {
    siwe: t.Boolean(),
    passkey: t.Boolean({ description: "passkey sign-in is configured on this deployment" }),
    session_cookie: t.Boolean(),
  },
  closed,
);

const SessionMethod = t.Union([t.Literal("siwe"), t.Literal("passkey"), t.Literal("operator")], { description: "how the session was signed in" });

/** What sign-in answers, SIWE and passkey alike: the token, shown once. */
export const IssuedSession = t.Object(
  {
    token: t.String({ pattern: "^sess_", description: "the session token: shown here once, stored only as sha256" }),
    token_type: t.Literal("session"),
    session_id: t.String(),
    account_id: t.String(),
    wallet_address: Nullable(Address),
    expires_at: Time,
    account_created: t.Boolean({ description: "this sign-in created the account (a wallet's first sign-in)" }),
  },
  closed,
);

export const Me = t.Object(
  {
    account_id: t.String(),
    wallet_address: Nullable(Address),
    wallets: t.Array(Address),
    created_at: Time,
    session: t.Object({ id: t.String(), method: SessionMethod, expires_at: Time }, closed),
  },
  closed,
);

export const Session = t.Object(
  {
    id: t.String(),
    method: SessionMethod,
    wallet_address: Nullable(Address),
    created_at: Time,
    last_seen_at: Nullable(Time),
    expires_at: Time,
    user_agent: Nullable(t.String()),
    ip: Nullable(t.String()),
    current: t.Boolean({ description: "the session making this request" }),
  },
  closed,
);

export const LoggedOut = t.Object({ logged_out: t.Literal(true), session_id: t.String() }, closed);

export const LoggedOutAll = t.Object({ logged_out: t.Literal(true), revoked: Int({ minimum: 0, description: "how many sessions ended" }) }, closed);

// ── wallets ──────────────────────────────────────────────────────────────────────────────

export const Wallet = t.Object({ address: Address, created_at: Time }, closed);

export const WalletParams = t.Object({ addr: t.String({ pattern: ADDRESS_PATTERN, error: ADDRESS_REASON, description: "0x address, any letter case" }) });

export const WalletRemoved = t.Object(
  { address: t.String({ description: "the address as given in the path" }), removed: t.Literal(true), at: Time },
  closed,
);

// ── passkeys: requests ───────────────────────────────────────────────────────────────────

const Base64Url = (maxLength: number) =>
  t.String({ minLength: 1, maxLength, pattern: "^[A-Za-z0-9_-]+={0,2}$", error: `must be a base64url string of at most ${maxLength} characters` });

/** The fields every PublicKeyCredential.toJSON() has; clientExtensionResults may be left out. */
const credentialFields = {
  id: Base64Url(1024),
  rawId: Base64Url(1024),
  type: t.Literal("public-key", { error: 'must be "public-key"' }),
  clientExtensionResults: t.Optional(t.Object({}, open)),
};

/** Browser-made, so open: browsers add fields over time and the library reads what it knows. */
export const RegistrationResponse = t.Object(
  {
    ...credentialFields,
    response: t.Object(
      {
        clientDataJSON: Base64Url(16_384),
        attestationObject: Base64Url(262_144),
        transports: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 32 }), { maxItems: 16 })),
      },
      open,
    ),
  },
  { ...open, description: "PublicKeyCredential.toJSON() from navigator.credentials.create()" },
);

/** Browser-made, so open (see RegistrationResponse). */
export const AuthenticationResponse = t.Object(
  {
    ...credentialFields,
    response: t.Object(
      {
        clientDataJSON: Base64Url(16_384),
        authenticatorData: Base64Url(16_384),
        signature: Base64Url(2_048),
        userHandle: t.Optional(Nullable(t.String({ maxLength: 256 }))),
      },
      open,
    ),
  },
  { ...open, description: "PublicKeyCredential.toJSON() from navigator.credentials.get()" },
);

/**
 * A passkey's label: 1–64 characters once trimmed, not blank, no control characters (what
 * passkeys.ts passkeyName checks, said here too).
 */
const PasskeyName = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$",
  error: "must be 1–64 characters, not blank, without control characters",
  description: "a label for the owner, e.g. the device; surrounding whitespace is trimmed",
});

/** Options routes take no body, or an empty object. */
export const EmptyBody = t.Optional(t.Object({}, closed));

export const LoginVerifyBody = t.Object({ response: AuthenticationResponse }, closed);

export const RegisterVerifyBody = t.Object({ response: RegistrationResponse, name: t.Optional(PasskeyName) }, closed);

export const RenamePasskeyBody = t.Object({ name: PasskeyName }, closed);

export const PasskeyParams = t.Object({ id: t.String({ maxLength: 100 }) });

// ── passkeys: responses ──────────────────────────────────────────────────────────────────

const PublicKey = t.Literal("public-key");
const UserVerification = t.Union([t.Literal("required"), t.Literal("preferred"), t.Literal("discouraged")]);
/** Transports as the authenticator reported them at registration (browser-made, so any string). */
const Transports = t.Array(t.String());
/** An open-ended dictionary by definition (WebAuthn extension inputs). */
const Extensions = t.Object({}, { ...open, description: "WebAuthn extension inputs" });

const CredentialDescriptor = t.Object({ id: t.String(), type: PublicKey, transports: t.Optional(Transports) }, closed);

/** PublicKeyCredentialCreationOptionsJSON, for navigator.credentials.create(), as @simplewebauthn/server makes it. */
export const RegistrationOptions = t.Object(
  {
    challenge: t.String({ description: "base64url; single use, lives 5 minutes" }),
    rp: t.Object({ name: t.String(), id: t.String() }, closed),
    user: t.Object({ id: t.String({ description: "the account's WebAuthn user handle, base64url" }), name: t.String(), displayName: t.String() }, closed),
    pubKeyCredParams: t.Array(t.Object({ alg: Int({ description: "COSE algorithm id" }), type: PublicKey }, closed)),
    timeout: Int({ minimum: 0, description: "milliseconds" }),
    attestation: t.Union([t.Literal("none"), t.Literal("indirect"), t.Literal("direct"), t.Literal("enterprise")]),
    excludeCredentials: t.Array(CredentialDescriptor, { description: "the account's passkeys: the same authenticator is not registered twice" }),
    authenticatorSelection: t.Object(
      {
        authenticatorAttachment: t.Optional(t.Union([t.Literal("platform"), t.Literal("cross-platform")])),
        residentKey: t.Optional(t.Union([t.Literal("discouraged"), t.Literal("preferred"), t.Literal("required")])),
        requireResidentKey: t.Optional(t.Boolean()),
        userVerification: t.Optional(UserVerification),
      },
      closed,
    ),
    extensions: t.Optional(Extensions),
    hints: t.Optional(t.Array(t.Union([t.Literal("security-key"), t.Literal("client-device"), t.Literal("hybrid")]))),
  },
  { ...closed, description: "PublicKeyCredentialCreationOptionsJSON: pass to navigator.credentials.create()" },
);

/** PublicKeyCredentialRequestOptionsJSON, for navigator.credentials.get() (discoverable passkeys: no allow-list). */
export const LoginOptions = t.Object(
  {
    challenge: t.String({ description: "base64url; single use, lives 5 minutes" }),
    rpId: t.String(),
    allowCredentials: t.Array(CredentialDescriptor, { maxItems: 0, description: "always empty: discoverable passkeys" }),
    timeout: Int({ minimum: 0, description: "milliseconds" }),
    userVerification: UserVerification,
    extensions: t.Optional(Extensions),
    hints: t.Optional(t.Array(t.Union([t.Literal("security-key"), t.Literal("client-device"), t.Literal("hybrid")]))),
  },
  { ...closed, description: "PublicKeyCredentialRequestOptionsJSON: pass to navigator.credentials.get()" },
);

/** A passkey as the API shows it: never its public key. */
export const Passkey = t.Object(
  {
    id: t.String(),
    name: t.String(),
    credential_id: t.String({ description: "base64url WebAuthn credential id" }),
    aaguid: t.String({ description: "the authenticator model's AAGUID (all zeros when it does not say)" }),
    device_type: t.Union([t.Literal("single_device"), t.Literal("multi_device")]),
    backed_up: t.Boolean(),
    transports: Transports,
    created_at: Time,
    last_used_at: Nullable(Time),
  },
  closed,
);

export const PasskeyDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

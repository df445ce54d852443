/**
 * A software WebAuthn authenticator: what a browser plus a platform authenticator would hand
 * a page, built byte by byte, so passkey tests exercise the real verification code with real
 * signatures instead of mocks.
 *
 * - P-256 key pair (node:crypto); ES256 signatures, DER-encoded, over
 *   authenticatorData ‖ sha256(clientDataJSON).
 * - authenticatorData: sha256(rpId) ‖ flags ‖ signCount (u32 big-endian) [‖ attested
 *   credential data: AAGUID ‖ u16 credential id length ‖ credential id ‖ COSE EC2 key].
 * - attestationObject: CBOR {fmt: "none", attStmt: {}, authData}.
 * - clientDataJSON: {type, challenge (base64url), origin, crossOrigin: false}.
 *
 * The signature counter is the test's to steer: by default each assertion adds one, and
 * `signCount` in an assertion's overrides sends whatever value a test needs (a clone that fell
 * behind, an authenticator that never counts).
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_BE = 0x08;
export const FLAG_BS = 0x10;
export const FLAG_AT = 0x40;

/** An AAGUID of our own making; a real one names the authenticator model. */
const AAGUID = Buffer.from("5f7e1d3c9a2b4c8e8f6a0b1c2d3e4f50", "hex");

/** What a test can change about one ceremony, to make it wrong in one way. */
export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  challenge?: string;
  type?: string;
  flags?: number;
}

export interface AssertionOverrides extends CeremonyOverrides {
  /** The signCount to report; otherwise the internal counter plus one. */
  signCount?: number;
  /** The userHandle to return; null leaves it out. Default: the one from registration. */
  userHandle?: string | null;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string): Buffer => createHash("sha256").update(data).digest();

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export class SoftAuthenticator {
  readonly credentialId: Buffer;
  /** The signCount of the last ceremony (registration starts it). */
  counter: number;
  /** The user handle the relying party gave at registration (base64url). */
  userHandle: string | null = null;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  /** Reports a synced (multi-device, backed-up) passkey, like iCloud Keychain or Google Password Manager. */
  private readonly backedUp: boolean;

  constructor(
    readonly origin: string,
    readonly rpId: string,
    options: { counter?: number; backedUp?: boolean } = {},
  ) {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
    this.credentialId = randomBytes(32);
    this.counter = options.counter ?? 0;
    this.backedUp = options.backedUp ?? false;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The credential public key as a COSE_Key (EC2, ES256, P-256). */
  cosePublicKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: "jwk" });
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, new Uint8Array(Buffer.from(jwk.x!, "base64url"))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, "base64url"))],
      ]),
    );
  }

  private baseFlags(): number {
    return FLAG_UP | FLAG_UV | (this.backedUp ? FLAG_BE | FLAG_BS : 0);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(): a RegistrationResponseJSON for these creation options. */
  register(options: CreationOptions, o: CeremonyOverrides = {}) {
    this.userHandle = options.user.id;
    const rpId = o.rpId ?? options.rp.id ?? this.rpId;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([o.flags ?? (this.baseFlags() | FLAG_AT)]),
      u32(this.counter),
      AAGUID,
      idLength,
      this.credentialId,
      this.cosePublicKey(),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, never>>([
        ["fmt", "none"],
        ["attStmt", new Map<string, never>()],
        ["authData", new Uint8Array(authData)],
      ]),
    );
    const clientDataJSON = this.clientData(o.type ?? "webauthn.create", o.challenge ?? options.challenge, o.origin ?? this.origin);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ["internal", "hybrid"] },
      authenticatorAttachment: "platform",
      clientExtensionResults: { credProps: { rk: true } },
    };
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON signed for these request options. */
  assert(options: RequestOptions, o: AssertionOverrides = {}) {
    const signCount = o.signCount ?? this.counter + 1;
    this.counter = signCount;
    const authData = Buffer.concat([sha256(o.rpId ?? options.rpId ?? this.rpId), Buffer.from([o.flags ?? this.baseFlags()]), u32(signCount)]);
    const clientDataJSON = this.clientData(o.type ?? "webauthn.get", o.challenge ?? options.challenge, o.origin ?? this.origin);
    // node:crypto's ECDSA output is DER by default, which is what WebAuthn carries.
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    const userHandle = o.userHandle === undefined ? this.userHandle : o.userHandle;
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }
}

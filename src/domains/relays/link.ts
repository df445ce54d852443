/**
 * A relay's link secret and pin (spec §5 rule 3). The secret is shown once, in share_url, and
 * kept only as sha256. The pin is kept as HMAC-SHA256 keyed by the secret: a pin is short enough
 * to guess, but guessing it from a copy of the database needs the secret, which the database
 * does not hold; online guesses are rate limited and lock the relay after MAX_PIN_FAILURES.
 */
import { createHmac } from "node:crypto";
import { digestsEqual, newSecret } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";

export const RELAY_SECRET_PREFIX = "rls";
export const ACCESS_TOKEN_PREFIX = "rat";

export const newRelaySecret = (): string => newSecret(RELAY_SECRET_PREFIX);
export const newAccessToken = (): string => newSecret(ACCESS_TOKEN_PREFIX);

export const shareUrl = (ctx: Context, secret: string): string => `${ctx.config.public_url}/v1/relay-access/${secret}`;

export const pinMac = (secret: string, pin: string): string => createHmac("sha256", secret).update(`svc relay pin\n${pin}`, "utf8").digest("hex");

/** Constant time whatever the pin's length (the MACs are equal-length digests). */
export const pinMatches = (secret: string, pin: string, stored: string): boolean => digestsEqual(pinMac(secret, pin), stored);

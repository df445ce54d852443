/**
 * Sign-in: an injected Ethereum wallet (EIP-1193 window.ethereum) signs an EIP-4361 message
 * built with viem's SIWE helper, or a passkey answers a WebAuthn challenge (SimpleWebAuthn's
 * browser helper). Either way svc sets the HttpOnly svc_session cookie; this page never holds
 * the session token.
 */
import { startAuthentication } from "@simplewebauthn/browser";
import { useState } from "preact/hooks";
import { createSiweMessage } from "viem/siwe";
import { post } from "../api.ts";
import type { AppState } from "../main.tsx";
import { ErrorNote } from "../ui.tsx";

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export async function signWithWallet(statement: string): Promise<{ message: string; signature: string }> {
  const ethereum = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  if (!ethereum) throw new Error("No Ethereum wallet found in this browser: install or unlock one (MetaMask, Rabby, Frame…), or sign in with a passkey");
  const [address] = (await ethereum.request({ method: "eth_requestAccounts" })) as string[];
  if (!address) throw new Error("the wallet shared no account");
  const chainId = Number.parseInt(String(await ethereum.request({ method: "eth_chainId" })), 16) || 1;
  const { nonce } = await post<{ nonce: string }>("/v1/auth/nonce");
  const message = createSiweMessage({ address: address.toLowerCase() as `0x${string}`, chainId, domain: location.host, nonce, uri: location.origin, version: "1", issuedAt: new Date(), statement });
  const signature = (await ethereum.request({ method: "personal_sign", params: [message, address] })) as string;
  return { message, signature };
}

export function SignIn({ state }: { state: AppState }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = (f: () => Promise<void>) => async () => {
    setBusy(true);
    setError(null);
    try {
      await f();
      await state.refresh();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const wallet = run(async () => {
    await post("/v1/auth/verify", await signWithWallet("Sign in to svc"));
  });
  const passkey = run(async () => {
    const optionsJSON = await post<Parameters<typeof startAuthentication>[0]["optionsJSON"]>("/v1/auth/passkey/login/options");
    const response = await startAuthentication({ optionsJSON });
    await post("/v1/auth/passkey/login/verify", { response });
  });
  return (
    <section class="signin" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Sign in to svc
      </h1>
      <p>Your account holds your credit, API keys, usage and signed receipts. Signing in with a new wallet creates an account.</p>
      <div class="stack">
        <button type="button" class="primary" id="siwe" disabled={busy} onClick={wallet}>
          Sign in with Ethereum wallet
        </button>
        {state.session.passkeys && (
          <button type="button" id="passkey-signin" disabled={busy} onClick={passkey}>
            Sign in with a passkey
          </button>
        )}
      </div>
      {!state.session.passkeys && <p class="muted">Passkeys are not configured on this deployment (passkeys.rp_id and passkeys.origin in svc.toml).</p>}
      <ErrorNote error={error} />
      {state.session.admin_configured && (
        <p class="muted">
          Running this deployment? <a href="/console/operator">Operator sign-in</a>
        </p>
      )}
    </section>
  );
}

/**
 * The consent page (GET /v1/oauth/consent?request=…): small server-rendered HTML, no build step.
 * It shows the client's name, the host its redirect goes to, the resource and the scopes asked
 * for; a signed-in person (svc_session cookie) ticks the scopes and an optional monthly cap and
 * approves or denies; a person not signed in signs in on the page (SIWE with an injected wallet;
 * a passkey where passkeys are configured) and the page reloads.
 *
 * Security: a strict Content-Security-Policy (nothing but this page's own nonce'd script and
 * style, no framing, forms only to svc), no caching, the approve call carries a CSRF token bound
 * to the request and the session (authorize.ts), and every value shown is HTML-escaped.
 */
import { randomBytes } from "node:crypto";
import { SiweMessage } from "siwe";
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { invalidField } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { resolveSession, SESSION_COOKIE, sessionCsrfToken } from "../auth/index.ts";
import { SCOPES } from "../keys/index.ts";
import { type AuthorizationRow, consentCsrfToken, DEFAULT_SCOPES, GRANTABLE, pendingAuthorization } from "./authorize.ts";
import { knownClient } from "./registration.ts";

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function signedInSession(ctx: Context, cookie: string | undefined): { accountId: string; sessionId: string } | null {
  if (!cookie) return null;
  try {
    return resolveSession(ctx, sha256Hex(cookie));
  } catch {
    return null;
  }
}

export interface ConsentPage {
  html: string;
  headers: Record<string, string>;
}

function headers(nonce: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    "cache-control": "no-store",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#111}
h1{font-size:1.4rem}.box{border:1px solid #ccc;border-radius:8px;padding:1rem;margin:1rem 0}
.muted{color:#555;font-size:.9rem}label{display:block;margin:.3rem 0}button{font-size:1rem;padding:.5rem 1rem;margin:.3rem .3rem 0 0;cursor:pointer}
#approve{background:#0a5;color:#fff;border:0;border-radius:4px}#status{min-height:1.5rem;color:#a30}code{word-break:break-all}`;

function page(nonce: string, title: string, body: string, script = ""): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style nonce="${nonce}">${STYLE}</style></head><body>${body}${script ? `<script nonce="${nonce}">${script}</script>` : ""}</body></html>`;
}

/** The page for a request id that is unknown, answered or expired. */
export function expiredPage(): ConsentPage {
  const nonce = randomBytes(16).toString("base64");
  return { html: page(nonce, "Authorization request", `<h1>This authorization request is over</h1><p>It expired or was already answered. Start again from the application that sent you here.</p>`), headers: headers(nonce) };
}

const SCRIPT = String.raw`
const $ = (id) => document.getElementById(id);
const data = JSON.parse($("consent-data").textContent);
const status = (t) => { $("status").textContent = t; };
async function post(path, body) {
  const headers = { "content-type": "application/json" };
  if (data.session_csrf) headers["x-csrf-token"] = data.session_csrf;
  const res = await fetch(path, { method: "POST", credentials: "same-origin", headers, body: JSON.stringify(body || {}) });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((json.error && json.error.message) || ("HTTP " + res.status));
  return json;
}
async function answer(approve) {
  try {
    const scopes = [...document.querySelectorAll("input[name=scope]:checked")].map((i) => i.value);
    const capText = ($("cap") && $("cap").value.trim()) || "";
    let cap = null;
    if (capText) {
      const m = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(capText);
      if (!m) return status("The monthly cap is a dollar amount, like 5 or 2.50");
      cap = Number(m[1]) * 1000000 + Number((m[2] || "").padEnd(6, "0"));
    }
    const out = await post("/v1/oauth/authorize/approve", { request_id: data.request_id, approve, scopes, monthly_cap_micro_usd: cap, csrf_token: data.csrf_token });
    status(approve ? "Approved; returning to the application…" : "Denied; returning to the application…");
    window.location.href = out.redirect_to;
  } catch (e) { status(e.message); }
}
async function siwe() {
  try {
    if (!window.ethereum) return status("No Ethereum wallet found in this browser");
    const [address] = await window.ethereum.request({ method: "eth_requestAccounts" });
    const chainId = parseInt(await window.ethereum.request({ method: "eth_chainId" }), 16);
    const { nonce } = await post("/v1/auth/nonce");
    const q = new URLSearchParams({ address, chain_id: String(chainId), nonce });
    const res = await fetch("/v1/oauth/consent/siwe-message?" + q, { credentials: "same-origin" });
    const { message } = await res.json();
    if (!res.ok) throw new Error("could not prepare the sign-in message");
    const signature = await window.ethereum.request({ method: "personal_sign", params: [message, address] });
    await post("/v1/auth/verify", { message, signature });
    window.location.reload();
  } catch (e) { status(e.message || String(e)); }
}
const b64u = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const unb64u = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
async function passkey() {
  try {
    const o = await post("/v1/auth/passkey/login/options");
    const cred = await navigator.credentials.get({ publicKey: { ...o, challenge: unb64u(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: unb64u(c.id) })) } });
    const r = cred.response;
    await post("/v1/auth/passkey/login/verify", { response: { id: cred.id, rawId: b64u(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(),
      response: { clientDataJSON: b64u(r.clientDataJSON), authenticatorData: b64u(r.authenticatorData), signature: b64u(r.signature), userHandle: r.userHandle ? b64u(r.userHandle) : undefined } } });
    window.location.reload();
  } catch (e) { status(e.message || String(e)); }
}
for (const [id, fn] of [["approve", () => answer(true)], ["deny", () => answer(false)], ["siwe", siwe], ["passkey", passkey]]) if ($(id)) $(id).addEventListener("click", fn);
`;

function scopeList(row: AuthorizationRow): string[] {
  return row.requested_scope ? row.requested_scope.split(" ") : DEFAULT_SCOPES;
}

export function consentPage(ctx: Context, requestId: string, sessionCookie: string | undefined, passkeysOn: boolean): ConsentPage {
  let row: AuthorizationRow;
  try {
    row = pendingAuthorization(ctx, requestId);
  } catch {
    return expiredPage();
  }
  const nonce = randomBytes(16).toString("base64");
  const client = knownClient(ctx, row.client_id);
  const name = client?.name ?? row.client_id;
  const redirectHost = new URL(row.redirect_uri).host;
  const requested = scopeList(row);
  const session = signedInSession(ctx, sessionCookie);
  const intro = `<h1>Authorize ${esc(name)}</h1>
<div class="box"><p><strong>${esc(name)}</strong> wants to use svc on your behalf.</p>
<p class="muted">It will be sent back to <strong id="redirect-host">${esc(redirectHost)}</strong>${client?.kind === "metadata_document" ? ` (client <code>${esc(row.client_id)}</code>)` : ""}.<br>
Resource: <code>${esc(row.resource)}</code><br>Requested scope: <code id="requested-scope">${esc(row.requested_scope ?? "(none named; svc's MCP tools)")}</code></p></div>`;
  if (!session) {
    const body = `${intro}<div class="box"><p>Sign in to svc to answer this request.</p>
<button id="siwe" type="button">Sign in with Ethereum</button>${passkeysOn ? `<button id="passkey" type="button">Sign in with a passkey</button>` : ""}
<p id="status" role="status"></p></div>
<script type="application/json" id="consent-data">${JSON.stringify({ request_id: row.id }).replace(/</g, "\\u003c")}</script>`;
    return { html: page(nonce, `Authorize ${name}`, body, SCRIPT), headers: headers(nonce) };
  }
  const boxes = GRANTABLE.map(
    (s) => `<label><input type="checkbox" name="scope" value="${esc(s)}"${requested.includes(s) || s === "mcp" ? " checked" : ""}${s === "mcp" ? " disabled" : ""}> <code>${esc(s)}</code> <span class="muted">${esc(SCOPES[s as keyof typeof SCOPES])}</span></label>`,
  ).join("");
  const body = `${intro}<div class="box"><p>The application gets an API key of your account, shown in your keys, that you can revoke at any time. It may:</p>${boxes}
<label>Monthly spend cap in USD (optional) <input id="cap" inputmode="decimal" size="10" placeholder="no cap"></label></div>
<button id="approve" type="button">Approve</button><button id="deny" type="button">Deny</button><p id="status" role="status"></p>
<script type="application/json" id="consent-data">${JSON.stringify({ request_id: row.id, csrf_token: consentCsrfToken(ctx, row.id, session.sessionId), session_csrf: sessionCsrfToken(ctx, session.sessionId) }).replace(/</g, "\\u003c")}</script>`;
  return { html: page(nonce, `Authorize ${name}`, body, SCRIPT), headers: headers(nonce) };
}

/** The EIP-4361 message the page's wallet signs: svc's domain and URI, the wallet's checksummed address, the nonce from POST /v1/auth/nonce. */
export function siweMessage(ctx: Context, input: { address: string; chain_id: number; nonce: string }): { message: string } {
  if (!/^0x[0-9a-fA-F]{40}$/.test(input.address)) throw invalidField("query.address", "must be a 0x-prefixed 20-byte hex address");
  const site = new URL(ctx.config.public_url);
  const message = new SiweMessage({
    domain: site.host,
    address: toChecksumAddress(input.address),
    statement: "Sign in to svc",
    uri: site.origin,
    version: "1",
    chainId: input.chain_id,
    nonce: input.nonce,
    issuedAt: isoTime(ctx.clock.now()),
  }).prepareMessage();
  return { message };
}

export { SESSION_COOKIE };

/**
 * View grants and claims: the two tokens an issuer hands out. A view token opens its scopes
 * only (documents need the documents scope: 403 insufficient_scope), is shown once and stored
 * hashed, and stops working when revoked or expired (404, like an unknown token). A claim token
 * shows the asset's name and the bound wallet, never an amount, and binds the wallet whose
 * EIP-191 signature of the claim's message it is given, once.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "bun:test";
import type { Harness } from "../../support/harness.ts";
import { call, keysOf, made, newAsset, newHolder, tenant, type Tenant, USD, vaultHarness, wallet, vaultPerTest } from "./vault-support.ts";

const fresh = vaultPerTest();
let h: Harness | undefined;
const setUp = () => {
  const w = fresh();
  h = w.h;
  return w;
};

const pub = (method: string, path: string, body?: unknown) => h!.json(method, path, { body });

async function furnished(t: Tenant) {
  const asset = await newAsset(t, { symbol: "HF1" });
  const ada = await newHolder(t, asset.id, { email: "ada@example.com", amount_micro_usd: 40 * USD });
  const bob = await newHolder(t, asset.id, { name: "Bob", amount_micro_usd: 10 * USD });
  await made(t, "POST", "/v1/vault/transfers", { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: USD });
  const auditor = wallet();
  const attester = await made(t, "POST", `/v1/vault/assets/${asset.id}/attesters`, { name: "Kline", roles: ["auditor"], wallet: auditor.address });
  await made(t, "POST", `/v1/vault/assets/${asset.id}/attestations`, {
    attester_id: attester.id,
    statement: "ok",
    signature: await auditor.signMessage({ message: `svc vault attestation\nasset: ${asset.id}\n\nok` }),
  });
  const document = await made(t, "POST", `/v1/vault/assets/${asset.id}/documents`, { name: "Deed", content_type: "text/plain", content_b64: Buffer.from("the deed").toString("base64") });
  return { asset, ada, bob, document };
}

describe("view grants", () => {
  test("a token opens exactly its scopes; documents need the documents scope (403 insufficient_scope)", async () => {
    const { a } = setUp();
    const { asset, ada, document } = await furnished(a);
    const all = await made(a, "POST", `/v1/vault/assets/${asset.id}/view-grants`, { scopes: ["positions", "activity", "attestations", "documents"], label: "auditor" });
    expect(all.token).toMatch(/^vview_/);
    expect(all).toMatchObject({ asset_id: asset.id, label: "auditor", status: "active", revoked_at: null, last_used_at: null, token_prefix: all.token.slice(0, 12) });
    expect(Date.parse(all.expires_at) - Date.parse(all.created_at)).toBe(30 * 86_400_000);
    // Stored hashed: the token is nowhere in the table.
    const row = h!.ctx.db.query<{ token_hash: string }, [string]>("SELECT token_hash FROM vault_grants WHERE id = ?").get(all.id)!;
    expect(row.token_hash).toBe(createHash("sha256").update(all.token).digest("hex"));

    const view = await pub("GET", `/v1/vault/view/${all.token}`);
    expect(view.status).toBe(200);
    expect(Object.keys(view.body).sort()).toEqual(["asset", "attestations", "chain_head", "distributions", "documents", "expires_at", "holders", "scopes", "transfers"]);
    expect(view.body.asset).toEqual({ id: asset.id, name: "Harbour Fund I", symbol: "HF1", description: null, total_micro_usd: 1000 * USD, issued_micro_usd: 50 * USD });
    expect(view.body.holders).toEqual([
      { id: ada.id, name: "Ada", position_micro_usd: 39 * USD, claimed: false },
      { id: expect.any(String), name: "Bob", position_micro_usd: 11 * USD, claimed: false },
    ]);
    expect(JSON.stringify(view.body)).not.toContain("ada@example.com");
    expect(view.body.transfers).toHaveLength(3);
    expect(view.body.attestations).toHaveLength(1);
    expect(view.body.documents).toEqual([document]);
    const content = await pub("GET", `/v1/vault/view/${all.token}/documents/${document.id}`);
    expect(content.status).toBe(200);
    expect(Buffer.from(content.body.content_b64, "base64").toString()).toBe("the deed");

    const narrow = await made(a, "POST", `/v1/vault/assets/${asset.id}/view-grants`, { scopes: ["positions"], expires_in_secs: 3600 });
    const seen = (await pub("GET", `/v1/vault/view/${narrow.token}`)).body;
    expect(seen.scopes).toEqual(["positions"]);
    expect([seen.transfers, seen.distributions, seen.attestations, seen.documents]).toEqual([null, null, null, null]);
    expect(seen.holders).toHaveLength(2);
    const refused = await pub("GET", `/v1/vault/view/${narrow.token}/documents/${document.id}`);
    expect([refused.status, refused.body.error.type, refused.body.error.required_scope]).toEqual([403, "insufficient_scope", "documents"]);
    // With the scope, another asset's document is not there.
    const other = await newAsset(a, { name: "Other" });
    const otherDoc = await made(a, "POST", `/v1/vault/assets/${other.id}/documents`, { name: "X", content_type: "text/plain", content_b64: "eA==" });
    expect((await pub("GET", `/v1/vault/view/${all.token}/documents/${otherDoc.id}`)).status).toBe(404);

    const grants = await call(a, "GET", `/v1/vault/assets/${asset.id}/view-grants`);
    expect(Object.keys(grants.body)).toEqual(["grants"]);
    expect(grants.body.grants.map((g: { id: string; last_used_at: string | null }) => [g.id, g.last_used_at !== null])).toEqual([
      [all.id, true],
      [narrow.id, true],
    ]);
    expect(keysOf(grants.body)).not.toContain("token");
  });

  test("revoked and expired tokens answer 404 like unknown ones; revoking is idempotent", async () => {
    const { a } = setUp();
    const { asset, document } = await furnished(a);
    const g = await made(a, "POST", `/v1/vault/assets/${asset.id}/view-grants`, { scopes: ["documents"], expires_in_secs: 120 });
    const unknown = await pub("GET", "/v1/vault/view/vview_unknown");
    expect(unknown.status).toBe(404);
    expect((await pub("GET", `/v1/vault/view/${g.token}`)).status).toBe(200);

    const revoked = await made(a, "DELETE", `/v1/vault/assets/${asset.id}/view-grants/${g.id}`, undefined, 200);
    expect(revoked.status).toBe("revoked");
    expect(await made(a, "DELETE", `/v1/vault/assets/${asset.id}/view-grants/${g.id}`, undefined, 200)).toEqual(revoked);
    for (const path of [`/v1/vault/view/${g.token}`, `/v1/vault/view/${g.token}/documents/${document.id}`]) {
      const r = await pub("GET", path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual(unknown.body);
    }

    const short = await made(a, "POST", `/v1/vault/assets/${asset.id}/view-grants`, { scopes: ["positions"], expires_in_secs: 60 });
    h!.clock.advance(59_000);
    expect((await pub("GET", `/v1/vault/view/${short.token}`)).status).toBe(200);
    h!.clock.advance(1_000);
    expect((await pub("GET", `/v1/vault/view/${short.token}`)).body).toEqual(unknown.body);
    const list = (await call(a, "GET", `/v1/vault/assets/${asset.id}/view-grants`)).body.grants;
    expect(list.map((x: { status: string }) => x.status)).toEqual(["revoked", "expired"]);
  });

  test("bad input 400 naming the field; another account's asset and grant answer 404", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a);
    const g = await made(a, "POST", `/v1/vault/assets/${asset.id}/view-grants`, { scopes: ["positions"] });
    for (const [body, param] of [
      [{}, "scopes"],
      [{ scopes: [] }, "scopes"],
      [{ scopes: ["everything"] }, "scopes.0"],
      [{ scopes: ["positions"], expires_in_secs: 59 }, "expires_in_secs"],
      [{ scopes: ["positions"], expires_in_secs: 400 * 86_400 }, "expires_in_secs"],
      [{ scopes: ["positions"], label: "" }, "label"],
      [{ scopes: ["positions"], token: "mine" }, "token"],
    ] as [Record<string, unknown>, string][]) {
      const r = await call(a, "POST", `/v1/vault/assets/${asset.id}/view-grants`, body);
      expect({ param, status: r.status, got: r.body.error?.param }).toEqual({ param, status: 400, got: param });
    }
    for (const [method, path, unknownPath, body] of [
      ["POST", `/v1/vault/assets/${asset.id}/view-grants`, "/v1/vault/assets/va_x/view-grants", { scopes: ["positions"] }],
      ["GET", `/v1/vault/assets/${asset.id}/view-grants`, "/v1/vault/assets/va_x/view-grants", undefined],
      ["DELETE", `/v1/vault/assets/${asset.id}/view-grants/${g.id}`, "/v1/vault/assets/va_x/view-grants/vgr_x", undefined],
    ] as const) {
      const theirs = await call(b, method, path, body);
      expect({ path, status: theirs.status }).toEqual({ path, status: 404 });
      expect(theirs.body).toEqual((await call(b, method, unknownPath, body)).body);
    }
    expect((await call(a, "DELETE", `/v1/vault/assets/${asset.id}/view-grants/vgr_nope`)).status).toBe(404);
    expect((await call(a, "GET", `/v1/vault/assets/${asset.id}/view-grants`)).body.grants[0].status).toBe("active");
  });
});

describe("claims", () => {
  test("the holder binds a wallet with the claim token: the public view shows the asset's name and the wallet, never an amount; a token binds once", async () => {
    const { a } = setUp();
    const { asset, ada, bob } = await furnished(a);
    const claim = await made(a, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, { expires_in_secs: 3600 });
    expect(claim).toMatchObject({ asset_id: asset.id, holder_id: ada.id, status: "open", wallet: null, bound_at: null });
    expect(claim.token).toMatch(/^vclaim_/);
    expect(claim.message).toBe(`svc vault claim ${claim.id}\nBind this wallet to holder ${ada.id} of asset ${asset.id}.`);
    expect(claim.message).not.toContain(claim.token);

    const seen = await pub("GET", `/v1/vault/claims/${claim.token}`);
    expect(seen.body).toEqual({ asset_name: "Harbour Fund I", status: "open", wallet: null, message: claim.message, expires_at: claim.expires_at, bound_at: null });

    const w = wallet();
    const signature = await w.signMessage({ message: claim.message });
    const stranger = await wallet().signMessage({ message: claim.message });
    const wrong = await pub("POST", `/v1/vault/claims/${claim.token}`, { wallet: w.address, signature: stranger });
    expect([wrong.status, wrong.body.error.param]).toEqual([400, "signature"]);
    const otherMessage = await w.signMessage({ message: `svc vault claim vcl_other` });
    expect((await pub("POST", `/v1/vault/claims/${claim.token}`, { wallet: w.address, signature: otherMessage })).status).toBe(400);

    const bound = await pub("POST", `/v1/vault/claims/${claim.token}`, { wallet: w.address.toLowerCase(), signature });
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ asset_name: "Harbour Fund I", status: "bound", wallet: w.address });
    const again = await pub("POST", `/v1/vault/claims/${claim.token}`, { wallet: w.address, signature });
    expect([again.status, again.body.error.type]).toEqual([409, "already_bound"]);
    const after = await pub("GET", `/v1/vault/claims/${claim.token}`);
    expect(after.body).toEqual(bound.body);
    expect(keysOf(after.body).filter((k) => /amount|micro_usd|position/.test(k))).toEqual([]);
    expect(JSON.stringify(after.body)).not.toContain(String(39 * USD));

    const holders = (await call(a, "GET", `/v1/vault/assets/${asset.id}/holders`)).body;
    expect(holders.holders[0]).toMatchObject({ id: ada.id, wallet: w.address });
    expect(holders.holders[0].claimed_at).not.toBeNull();
    expect(holders.pending_claims_micro_usd).toBe(11 * USD); // Bob has not claimed

    // A bound holder takes no new claim; the same wallet cannot be bound to a second holder of the asset.
    const more = await call(a, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, {});
    expect([more.status, more.body.error.type]).toEqual([409, "already_bound"]);
    const bobClaim = await made(a, "POST", `/v1/vault/assets/${asset.id}/holders/${bob.id}/claims`, {});
    const taken = await pub("POST", `/v1/vault/claims/${bobClaim.token}`, { wallet: w.address, signature: await w.signMessage({ message: bobClaim.message }) });
    expect([taken.status, taken.body.error.type]).toEqual([409, "wallet_taken"]);

    const list = await call(a, "GET", "/v1/vault/claims");
    expect(Object.keys(list.body)).toEqual(["claims"]);
    expect(list.body.claims.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      [bobClaim.id, "open"],
      [claim.id, "bound"],
    ]);
    expect(keysOf(list.body)).not.toContain("token");
  });

  test("a newer claim supersedes the open one; an expired claim cannot bind; unknown tokens 404", async () => {
    const { a } = setUp();
    const { asset, ada } = await furnished(a);
    const old = await made(a, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, {});
    const fresh = await made(a, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, { expires_in_secs: 60 });
    const w = wallet();
    expect((await pub("GET", `/v1/vault/claims/${old.token}`)).body.status).toBe("superseded");
    const superseded = await pub("POST", `/v1/vault/claims/${old.token}`, { wallet: w.address, signature: await w.signMessage({ message: old.message }) });
    expect([superseded.status, superseded.body.error.type]).toEqual([409, "claim_superseded"]);
    h!.clock.advance(60_000);
    expect((await pub("GET", `/v1/vault/claims/${fresh.token}`)).body.status).toBe("expired");
    const expired = await pub("POST", `/v1/vault/claims/${fresh.token}`, { wallet: w.address, signature: await w.signMessage({ message: fresh.message }) });
    expect([expired.status, expired.body.error.type]).toEqual([409, "claim_expired"]);
    expect((await pub("GET", "/v1/vault/claims/vclaim_nope")).status).toBe(404);
    expect((await pub("POST", "/v1/vault/claims/vclaim_nope", { wallet: w.address, signature: await w.signMessage({ message: "x" }) })).status).toBe(404);
  });

  test("bad input 400 naming the field; another account's asset and holder answer 404", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a);
    const ada = await newHolder(a, asset.id);
    const claim = await made(a, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, {});
    for (const [body, param] of [
      [{ expires_in_secs: 10 }, "expires_in_secs"],
      [{ expires_in_secs: 31 * 86_400 }, "expires_in_secs"],
      [{ expires_in_secs: "60" }, "expires_in_secs"],
      [{ holder: "me" }, "holder"],
    ] as [Record<string, unknown>, string][]) {
      const r = await call(a, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, body);
      expect({ param, status: r.status, got: r.body.error?.param }).toEqual({ param, status: 400, got: param });
    }
    const w = wallet();
    const sig = await w.signMessage({ message: claim.message });
    for (const [body, param] of [
      [{ signature: sig }, "wallet"],
      [{ wallet: "0x12", signature: sig }, "wallet"],
      [{ wallet: w.address }, "signature"],
      [{ wallet: w.address, signature: "0x00" }, "signature"],
      [{ wallet: w.address, signature: sig, extra: 1 }, "extra"],
    ] as [Record<string, unknown>, string][]) {
      const r = await pub("POST", `/v1/vault/claims/${claim.token}`, body);
      expect({ param, status: r.status, got: r.body.error?.param }).toEqual({ param, status: 400, got: param });
    }
    const theirs = await call(b, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, {});
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual((await call(b, "POST", "/v1/vault/assets/va_x/holders/vh_x/claims", {})).body);
    expect((await call(b, "GET", "/v1/vault/claims")).body).toEqual({ claims: [] });
  });
});

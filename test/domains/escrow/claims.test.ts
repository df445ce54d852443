/**
 * /v1/escrow/claims: claim inputs prepared from the account's own receipts, checked with viem
 * exactly as an escrow contract would (ecrecover over the EIP-191 digest of the message, the
 * message decoding to the fields), what claimable:true says, the documented refusals, bad
 * input with the field named, the list, and another account's claim answering like an unknown.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type Hex, hashMessage, hexToString, keccak256, recoverAddress, toBytes } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { meterWork } from "../../../src/core/metered-work.ts";
import { signStatement, statementOf } from "../../../src/core/statements.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

function setUp() {
  h = makeHarness();
  const { account, session } = accountWithSession(h.ctx);
  return { h, accountId: account.id, auth: { headers: bearer(session.token) } };
}

/** A real receipt of the account: priced work through the meter, as any area mints one. */
async function receiptOf(h: Harness, accountId: string, resource = "/v1/test") {
  const { settlement } = await meterWork(h.ctx.meter, h.ctx.log, { accountId, keyId: null, price: 0, kind: "test_work", resource }, async () => ({ result: null, status: "succeeded", units: { items: 3 } }));
  const r = settlement.receipt!;
  return { id: r.id, receipt: r.receipt, signature: r.signature };
}

const prepare = (h: Harness, auth: { headers: Record<string, string> }, body: unknown) => h.json("POST", "/v1/escrow/claims", { ...auth, body });
const decode = (statement: string) => JSON.parse(Buffer.from(statement, "base64url").toString("utf8"));

describe("POST /v1/escrow/claims", () => {
  test("prepares inputs a contract can check: ecrecover over the digest gives svc's signer, the message is the receipt, the fields are its payload", async () => {
    const { h, accountId, auth } = setUp();
    const rc = await receiptOf(h, accountId);
    const r = await prepare(h, auth, { receipt: rc.receipt, signature: rc.signature });
    expect(r.status).toBe(201);
    expect(r.body.request_id).toBe(rc.id);
    expect(r.body.claimable).toBe(true);
    expect(r.body.claimable_means).toContain("signature recovers");
    expect(r.body.claimable_means).toContain("does not say the work was acceptable");
    expect(r.body.receipt).toBe(rc.receipt);

    const inputs = r.body.inputs;
    const pub = await h.json("GET", "/v1/receipts/pubkey");
    // What an escrow contract does: recover from the digest and the split signature…
    const recovered = await recoverAddress({ hash: inputs.digest as Hex, signature: { r: inputs.r as Hex, s: inputs.s as Hex, v: BigInt(inputs.v) } });
    expect(recovered).toBe(pub.body.address);
    expect(inputs.signer).toBe(pub.body.address);
    // …and re-derive the digest from the message, which is the receipt string itself.
    expect(hexToString(inputs.message as Hex)).toBe(rc.receipt);
    expect(hashMessage(rc.receipt)).toBe(inputs.digest);
    expect(inputs.signature).toBe(rc.signature);
    expect(`${inputs.r}${inputs.s.slice(2)}${inputs.v.toString(16)}`).toBe(rc.signature);
    expect(inputs.request_key).toBe(keccak256(toBytes(rc.id)));

    const payload = decode(rc.receipt);
    expect(inputs.fields).toEqual({
      receipt_version: payload.v,
      account: accountId,
      key_id: null,
      kind: "test_work",
      status: "succeeded",
      resource: "/v1/test",
      run_id: null,
      usage_event_id: payload.usage_event_id,
      cost_micro_usd: 0,
      settled_at: payload.settled_at,
      settled_at_unix: Math.floor(Date.parse(payload.settled_at) / 1000),
    });

    // Preparing the same receipt again answers the stored claim.
    h.clock.advance(5000);
    const again = await prepare(h, auth, { receipt: rc.receipt, signature: rc.signature });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
  });

  test("refusals: a signature by someone else, a tampered payload, a statement that is not a receipt, another account's receipt", async () => {
    const { h, accountId, auth } = setUp();
    const rc = await receiptOf(h, accountId);

    const forger = privateKeyToAccount(generatePrivateKey());
    const forged = await prepare(h, auth, { receipt: rc.receipt, signature: await forger.signMessage({ message: rc.receipt }) });
    expect(forged.status).toBe(422);
    expect(forged.body.error.type).toBe("receipt_not_verified");
    expect(forged.body.error.reason).toContain("not this service's signer");

    const tampered = statementOf({ ...decode(rc.receipt), cost_micro_usd: 1_000_000 });
    const t = await prepare(h, auth, { receipt: tampered, signature: rc.signature });
    expect([t.status, t.body.error.type]).toEqual([422, "receipt_not_verified"]);

    const proof = signStatement(h.ctx.signer, { v: 1, type: "mandate_proof", id: "mdt_x", account: accountId, issued_at: new Date(h.clock.now()).toISOString() });
    const notReceipt = await prepare(h, auth, { receipt: proof.statement, signature: proof.signature });
    expect([notReceipt.status, notReceipt.body.error.type]).toEqual([422, "not_a_receipt"]);

    const other = accountWithSession(h.ctx);
    const theirs = await receiptOf(h, other.account.id);
    const r = await prepare(h, auth, { receipt: theirs.receipt, signature: theirs.signature });
    expect([r.status, r.body.error.type]).toEqual([403, "receipt_of_another_account"]);

    expect(h.ctx.db.query("SELECT count(*) AS n FROM escrow_claims").get()).toEqual({ n: 0 });
  });

  test("bad input is refused with the field named", async () => {
    const { h, accountId, auth } = setUp();
    const rc = await receiptOf(h, accountId);
    const ok = { receipt: rc.receipt, signature: rc.signature };
    const cases: [unknown, string][] = [
      [{ signature: rc.signature }, "receipt"],
      [{ ...ok, receipt: "" }, "receipt"],
      [{ ...ok, receipt: `${rc.receipt}==` }, "receipt"],
      [{ ...ok, receipt: "not base64url!" }, "receipt"],
      [{ ...ok, receipt: 7 }, "receipt"],
      [{ ...ok, receipt: "a".repeat(65_537) }, "receipt"],
      [{ receipt: rc.receipt }, "signature"],
      [{ ...ok, signature: rc.signature.slice(0, 100) }, "signature"],
      [{ ...ok, signature: rc.signature.slice(2) }, "signature"],
      [{ ...ok, signature: `0x${"zz".repeat(65)}` }, "signature"],
      [{ ...ok, account: accountId }, "account"],
    ];
    for (const [body, param] of cases) {
      const r = await prepare(h, auth, body);
      expect([param, r.status, r.body.error?.param]).toEqual([param, 400, param]);
    }
  });

  test("needs a session: an API key or no credential is refused", async () => {
    const { h, accountId } = setUp();
    const rc = await receiptOf(h, accountId);
    const none = await h.json("POST", "/v1/escrow/claims", { body: { receipt: rc.receipt, signature: rc.signature } });
    expect(none.status).toBe(401);
    const key = apiKeyFor(h.ctx, accountId);
    const byKey = await h.json("POST", "/v1/escrow/claims", { headers: bearer(key.token), body: { receipt: rc.receipt, signature: rc.signature } });
    expect(byKey.status).toBe(401);
  });
});

describe("GET /v1/escrow/claims and /:request_id", () => {
  test("the list is newest first with ?limit=; one claim by its request_id; another account's answers like an unknown one", async () => {
    const { h, accountId, auth } = setUp();
    const ids: string[] = [];
    for (const resource of ["/a", "/b", "/c"]) {
      const rc = await receiptOf(h, accountId, resource);
      expect((await prepare(h, auth, { receipt: rc.receipt, signature: rc.signature })).status).toBe(201);
      ids.push(rc.id);
      h.clock.advance(1000);
    }
    const list = await h.json("GET", "/v1/escrow/claims", auth);
    expect(list.status).toBe(200);
    expect(list.body.claims.map((c: any) => c.request_id)).toEqual([...ids].reverse());
    expect(list.body.claims.every((c: any) => c.claimable === true)).toBe(true);
    const two = await h.json("GET", "/v1/escrow/claims?limit=2", auth);
    expect(two.body.claims.map((c: any) => c.request_id)).toEqual([ids[2], ids[1]]);
    for (const limit of ["0", "x", "-1"]) {
      const bad = await h.json("GET", `/v1/escrow/claims?limit=${limit}`, auth);
      expect([bad.status, bad.body.error.param]).toEqual([400, "limit"]);
    }

    const one = await h.json("GET", `/v1/escrow/claims/${ids[0]}`, auth);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(list.body.claims[2]);

    const other = accountWithSession(h.ctx);
    const otherAuth = { headers: bearer(other.session.token) };
    expect((await h.json("GET", "/v1/escrow/claims", otherAuth)).body).toEqual({ claims: [] });
    const theirs = await h.json("GET", `/v1/escrow/claims/${ids[0]}`, otherAuth);
    const unknown = await h.json("GET", "/v1/escrow/claims/rcpt_doesnotexist", otherAuth);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
  });
});

/**
 * The support program on a real local chain (anvil): a nonce and its message, signed by a real
 * ed25519 key (node:crypto) and a real EVM key (viem), with a real TestUSDT transaction sent
 * from the EVM address; the claim registered once, the nonce spent once, the lookup masked; and
 * every refusal: wrong signatures, an expired or reused nonce, a transaction not yet finalized,
 * not from the address, or already backing a claim; bad input naming its field.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { type Address, createWalletClient, type Hash, http } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { anvil } from "viem/chains";
import type { Config } from "../../../src/config.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet, TEST_USDT_ABI } from "../../support/devnet.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";

const USDT = 1_000_000n;
let chain: Devnet;
let token: Address;
let sink: Address;

beforeAll(async () => {
  chain = await startDevnet();
  sink = chain.accounts[1]!;
  token = await chain.deployToken();
});
afterAll(() => chain?.stop());

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

const config = (withChain: boolean) => (c: Config) => {
  c.rate_limit.public_burst = 100_000;
  c.chains = withChain ? [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: token, decimals: 6, confirmations: 3, explorer_url: "https://explorer.test" }] : [];
};
const world = () => (h = makeHarness({ config: config(true) }));

/** A claimant: a fresh ed25519 key pair and a fresh EVM key with gas and USDT on the devnet. */
interface Claimant {
  ed: { publicKey: KeyObject; privateKey: KeyObject; hex: string };
  evm: PrivateKeyAccount;
}

async function claimant(): Promise<Claimant> {
  const pair = generateKeyPairSync("ed25519");
  const jwk = pair.publicKey.export({ format: "jwk" }) as { x: string };
  const evm = privateKeyToAccount(generatePrivateKey());
  await chain.client.setBalance({ address: evm.address, value: 10n ** 18n });
  await chain.mint(token, evm.address, 100n * USDT);
  return { ed: { ...pair, hex: Buffer.from(jwk.x, "base64url").toString("hex") }, evm };
}

/** A USDT transfer signed by the claimant's own EVM key (viem, locally). */
async function sendFrom(c: Claimant, amount = USDT): Promise<Hash> {
  const wallet = createWalletClient({ account: c.evm, chain: anvil, transport: http(chain.url, { retryCount: 0 }) });
  const hash = await wallet.writeContract({ address: token, abi: TEST_USDT_ABI, functionName: "transfer", args: [sink, amount] });
  await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 10, timeout: 10_000 });
  return hash;
}

async function nonce(h: Harness) {
  const r = await h.json("POST", "/v1/support/nonce");
  expect(r.status).toBe(201);
  return r.body as { nonce: string; message: string; issued_at: string; expires_at: string };
}

async function signedBody(c: Claimant, n: { nonce: string; message: string }, txHash: string, over: { edSigner?: Claimant; evmSigner?: Claimant; message?: string } = {}) {
  const message = over.message ?? n.message;
  return {
    nonce: n.nonce,
    ed25519_public_key: c.ed.hex,
    ed25519_signature: sign(null, Buffer.from(message, "utf8"), (over.edSigner ?? c).ed.privateKey).toString("hex"),
    evm_address: c.evm.address,
    evm_signature: await (over.evmSigner ?? c).evm.signMessage({ message }),
    chain: "devnet",
    tx_hash: txHash,
  };
}

const claim = (h: Harness, body: unknown) => h.json("POST", "/v1/support/claims", { body });
const masked = (address: string) => `${address.slice(0, 6).toLowerCase()}…${address.slice(-4).toLowerCase()}`;

describe("a support claim", () => {
  test("both wallets sign one nonce's message, a finalized transaction from the EVM address: registered once, looked up masked", async () => {
    const h = world();
    const c = await claimant();
    const n = await nonce(h);
    expect(n.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(n.message).toContain(`Nonce: ${n.nonce}`);
    expect(n.message).toContain(`Expiration Time: ${n.expires_at}`);
    expect(Date.parse(n.expires_at) - Date.parse(n.issued_at)).toBe(900_000);

    const tx = await sendFrom(c);
    const early = await claim(h, await signedBody(c, n, tx));
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ type: "transaction_not_finalized", confirmations: 1, required_confirmations: 3 });

    await chain.mine(2);
    const made = await claim(h, await signedBody(c, n, tx));
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ id: expect.stringMatching(/^supc_/), status: "registered", date: new Date(h.clock.now()).toISOString(), address: masked(c.evm.address) });
    expect(made.body.address).toMatch(/^0x[0-9a-f]{4}…[0-9a-f]{4}$/);

    const found = await h.json("GET", `/v1/support/claims/${c.evm.address}`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual(made.body);
    expect((await h.json("GET", `/v1/support/claims/${c.evm.address.toLowerCase()}`)).body).toEqual(made.body);
    expect(JSON.stringify(found.body)).not.toContain(c.evm.address.slice(6, -4).toLowerCase());

    // The nonce is spent: another pair cannot use it, and the same pair cannot register twice.
    const d = await claimant();
    const dTx = await sendFrom(d);
    await chain.mine(3);
    const reuse = await claim(h, await signedBody(d, n, dTx));
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.type).toBe("nonce_used");
    const again = await claim(h, await signedBody(c, await nonce(h), dTx));
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe("already_claimed");
    // A transaction backs one claim.
    const e = await claimant();
    const usedTx = await claim(h, await signedBody(e, await nonce(h), tx));
    expect(usedTx.status).toBe(409);
    expect(usedTx.body.error.type).toBe("transaction_already_used");
  });

  test("a signature by another key, over another message, or a transaction not from the address is refused, and the nonce stays usable", async () => {
    const h = world();
    const c = await claimant();
    const other = await claimant();
    const tx = await sendFrom(c);
    const foreign = await sendFrom(other);
    await chain.mine(3);
    const n = await nonce(h);

    const cases: [Parameters<typeof signedBody>[3], string, string][] = [
      [{ edSigner: other }, "invalid_signature", "ed25519_signature"],
      [{ evmSigner: other }, "invalid_signature", "evm_signature"],
      [{ message: n.message.replace("Nonce", "nonce") }, "invalid_signature", "ed25519_signature"],
    ];
    for (const [over, type, param] of cases) {
      const r = await claim(h, await signedBody(c, n, tx, over));
      expect([param, r.status, r.body.error.type, r.body.error.param]).toEqual([param, 400, type, param]);
    }
    const notMine = await claim(h, await signedBody(c, n, foreign));
    expect(notMine.status).toBe(422);
    expect(notMine.body.error).toMatchObject({ type: "transaction_not_from_address", param: "tx_hash" });
    const missing = await claim(h, await signedBody(c, n, `0x${"ab".repeat(32)}`));
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe("transaction_not_found");

    expect((await claim(h, await signedBody(c, n, tx))).status).toBe(201);
  });

  test("an expired or unknown nonce is refused", async () => {
    const h = world();
    const c = await claimant();
    const tx = await sendFrom(c);
    await chain.mine(3);
    const n = await nonce(h);
    h.clock.advance(900_001);
    const late = await claim(h, await signedBody(c, n, tx));
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({ type: "invalid_nonce", param: "nonce" });
    const unknown = await claim(h, await signedBody(c, { ...n, nonce: "0".repeat(32) }, tx));
    expect(unknown.body.error.type).toBe("invalid_nonce");
  });

  test("bad input names the field; an address without a claim is 404; no chain, no program", async () => {
    const h = world();
    const c = await claimant();
    const n = await nonce(h);
    const good = await signedBody(c, n, `0x${"ab".repeat(32)}`);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, nonce: "xyz" }, "nonce"],
      [{ ...good, ed25519_public_key: "ab" }, "ed25519_public_key"],
      [{ ...good, ed25519_signature: "zz".repeat(64) }, "ed25519_signature"],
      [{ ...good, evm_address: "0x1234" }, "evm_address"],
      [{ ...good, evm_signature: "0x00" }, "evm_signature"],
      [{ ...good, tx_hash: "0x12" }, "tx_hash"],
      [{ ...good, chain: "mainnet" }, "chain"],
      [{ ...good, extra: 1 }, "extra"],
      [(({ chain: _c, ...rest }) => rest)(good), "chain"],
    ];
    for (const [body, param] of cases) {
      const r = await claim(h, body);
      expect([param, r.status, r.body.error?.param]).toEqual([param, 400, param]);
    }
    const none = await h.json("GET", `/v1/support/claims/${c.evm.address}`);
    expect(none.status).toBe(404);
    expect((await h.json("GET", "/v1/support/claims/not-an-address")).status).toBe(400);

    const bare = makeHarness({ config: config(false) });
    try {
      expect((await bare.json("POST", "/v1/support/nonce")).status).toBe(501);
      expect((await bare.json("POST", "/v1/support/claims", { body: good })).status).toBe(501);
    } finally {
      bare.close();
    }
  });
});

/**
 * Receipt signing and verification on one core: how many receipts svc can mint (canonical
 * JSON → base64url → EIP-191 secp256k1 signature: signStatement) and verify (decode, recover
 * the signer, compare: verifyStatement) per second, over a payload shaped like the ones
 * settle mints. Pure CPU, no database: the signature is the part of a settle that grows with
 * nothing but the CPU. Minting is measured with each secp256k1 implementation this machine has
 * (libsecp256k1 through bun:ffi when installed, and @noble/secp256k1), and so is verifying. Prints figures; no
 * thresholds.
 *
 *   bun bench/receipts.ts [--ops N] [--json]
 */
import { generateSecretKey, nativeSecp256k1, useSecp256k1 } from "../src/core/eip191.ts";
import { newId } from "../src/core/ids.ts";
import { Signer } from "../src/core/signer.ts";
import { type SignedStatement, signStatement, verifyStatement } from "../src/core/statements.ts";
import { log, machineInfo, parseFlags } from "./support.ts";

const { values } = parseFlags({ ops: { type: "string", default: "5000" } }, "Usage: bun bench/receipts.ts [--ops N]\n  --ops N             receipts signed, then verified (default 5000)");
const ops = Number(values.ops);
if (!Number.isInteger(ops) || ops < 100) {
  console.error("--ops must be a whole number ≥ 100");
  process.exit(2);
}

const signer = new Signer(generateSecretKey());
const signers = [new Signer(generateSecretKey()).address, signer.address]; // a rotated deployment: two known signers

/** What mintReceipt signs for an inference call (src/domains/receipts/mint.ts), with fresh ids each time. */
function payload(i: number): Record<string, unknown> {
  const at = Date.UTC(2026, 10, 21, 12, 0, 0) + i;
  return {
    v: 1,
    type: "receipt",
    id: newId("rcpt"),
    kind: "inference",
    status: "succeeded",
    account: "acct_3f9a1c0d2b7e4a65b8c1",
    key_id: "key_8d2e5f1a9c3b7e04d6a2",
    resource: "gpt-4o-mini",
    run_id: "run_nightly-eval-2026-11-21",
    cost_micro_usd: 1_234 + i,
    reserved_micro_usd: 50_000,
    units: { input_tokens: 1_850, output_tokens: 412, cached_tokens: 0, finish_reason: "stop", prompt_sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" },
    usage_event_id: newId("use"),
    reserved_at: new Date(at - 850).toISOString(),
    settled_at: new Date(at).toISOString(),
  };
}

function measure<T>(name: string, fn: (i: number) => T): { name: string; ops: number; per_sec: number; us_per_op: number; results: T[] } {
  for (let i = 0; i < Math.min(500, ops); i++) fn(i); // warm-up: JIT and the implementation's precomputed tables
  log(`${name}: ${ops} operations`);
  const results: T[] = new Array(ops);
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) results[i] = fn(i);
  const secs = (performance.now() - t0) / 1000;
  return { name, ops, per_sec: Math.round(ops / secs), us_per_op: Math.round((secs / ops) * 1e6 * 10) / 10, results };
}

const payloads = Array.from({ length: ops }, (_, i) => payload(i));
const measured: { name: string; ops: number; per_sec: number; us_per_op: number }[] = [];
let receipts: SignedStatement[] = [];
// Each implementation this machine has mints, then verifies (recovers the signer of) every receipt.
for (const [setting, name] of [["auto", "libsecp256k1"], ["js", "@noble/secp256k1"]] as const) {
  useSecp256k1(setting);
  if (setting === "auto" && !nativeSecp256k1()) continue;
  const minted = measure<SignedStatement>(`mint, ${name}`, (i) => signStatement(signer, payloads[i]!));
  if (receipts.length && minted.results.some((r, i) => r.signature !== receipts[i]!.signature)) {
    console.error("the two implementations signed differently: the bench measured something broken");
    process.exit(1);
  }
  receipts = minted.results;
  const verified = measure(`verify, ${name}`, (i) => verifyStatement(receipts[i]!.statement, receipts[i]!.signature, signers).valid);
  if (!verified.results.every(Boolean)) {
    console.error("a receipt failed to verify: the bench measured something broken");
    process.exit(1);
  }
  measured.push(minted, verified);
}

const bytes = receipts[0]!.statement.length;
const info = { ...machineInfo("source tree"), note: `one process, one core, no database; receipt string ${bytes} characters` };
const rows = measured.map(({ name, ops, per_sec, us_per_op }) => ({ name, ops, per_sec, us_per_op }));
if (values.json) console.log(JSON.stringify({ machine: info, results: rows }, null, 2));
else {
  console.log(`svc receipts bench: ${info.nproc} CPUs (${info.cpu_model}), bun ${info.bun_version}`);
  console.log(info.note);
  console.log("");
  console.log(`${"operation".padEnd(26)}  ${"per sec".padStart(9)}  ${"µs/op".padStart(8)}`);
  for (const r of rows) console.log(`${r.name.padEnd(26)}  ${String(r.per_sec).padStart(9)}  ${String(r.us_per_op).padStart(8)}`);
}

/**
 * svc receipts verify FILE|-: checks a signed receipt the way a third party would, against this
 * deployment's signer list (when a data dir is at hand) or addresses given with --signer.
 * The same check as POST /v1/receipts/verify (src/domains/receipts/verify.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { paths } from "../../config.ts";
import { isAddress, toChecksumAddress } from "../../core/eip191.ts";
import { listSigners, type SignerRecord } from "./signers.ts";
import { type ReceiptVerification, verifyReceipt } from "./verify.ts";
import { type Command, CommandFailed, type CommandHost, EXIT_FAILURE, EXIT_OK, type Group, locationOptions, type Parsed, str, UsageError } from "../../cli/command.ts";

/** Where the accepted signers came from: the deployment's list, --signer, or nowhere. */
type SignerSource = { kind: "deployment"; dataDir: string; signers: SignerRecord[] } | { kind: "given"; signers: SignerRecord[] } | { kind: "none" };

interface Input {
  receipt: unknown;
  signature: unknown;
  /** The signer the input itself names (receipt_minted, the owner route): a claim, not a trust anchor. */
  claimedSigner: string | null;
}

/** {receipt, signature}, a receipt_minted payload, or either inside a delivery envelope ("data" / "payload"). */
function extract(text: string): Input | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "input is not JSON";
  }
  const candidates = [parsed, (parsed as { data?: unknown })?.data, (parsed as { payload?: unknown })?.payload];
  const found = candidates.find((c): c is Record<string, unknown> => typeof c === "object" && c !== null && !Array.isArray(c) && "receipt" in c);
  if (!found) return 'input has no "receipt" field (expected {"receipt", "signature"} or a receipt_minted payload)';
  const claimed = typeof found.signer === "string" && isAddress(found.signer) ? toChecksumAddress(found.signer) : null;
  return { receipt: found.receipt, signature: found.signature, claimedSigner: claimed };
}

async function readInput(source: string): Promise<string> {
  if (source === "-") return await Bun.stdin.text();
  if (!existsSync(source)) throw new CommandFailed(`no such file: ${source}`);
  return readFileSync(source, "utf8");
}

async function signerSource(values: Parsed["values"], host: CommandHost): Promise<SignerSource> {
  const given = (values.signer as string[] | undefined) ?? [];
  if (given.length) {
    for (const a of given) if (!isAddress(a)) throw new UsageError(`--signer ${a}: not a 0x-prefixed 20-byte hex address`);
    return { kind: "given", signers: given.map((a) => ({ address: toChecksumAddress(a), validFrom: 0, validUntil: null })) };
  }
  const explicit = Boolean(str(values["data-dir"]) || str(values.config));
  let config;
  try {
    config = host.configFrom(values);
  } catch (err) {
    if (explicit) throw err;
    return { kind: "none" };
  }
  if (!existsSync(paths(config).masterKey)) {
    if (explicit) throw new CommandFailed(`no svc data in ${config.data_dir} (no master key); drop --data-dir/--config, or pass --signer ADDRESS`);
    return { kind: "none" };
  }
  return { kind: "deployment", dataDir: config.data_dir, signers: await host.withContext(values, (ctx) => listSigners(ctx.db)) };
}

function signerLine(source: SignerSource, result: ReceiptVerification, claimed: string | null): string {
  if (source.kind === "none") {
    const claim =
      result.recovered_address === null || claimed === null
        ? "the input names no signer to compare with"
        : result.recovered_address === claimed
          ? `it matches the signer the input names (${claimed}), which is only a claim`
          : `it does NOT match the signer the input names (${claimed}): the receipt or signature was changed`;
    return `not checked: no data dir, so this deployment's signer list could not be checked (pass --data-dir, or --signer ADDRESS from GET /v1/receipts/pubkey); ${claim}`;
  }
  if (!result.valid) return source.kind === "deployment" ? `checked against the signer list of ${source.dataDir}` : "checked against the --signer addresses";
  if (source.kind === "given") return `${result.signer.address}, one of the --signer addresses`;
  return result.signer.current
    ? `${result.signer.address}, this deployment's current signer`
    : `${result.signer.address}, this deployment's signer from ${result.signer.valid_from} to ${result.signer.valid_until}`;
}

const verify: Command = {
  name: "receipts verify",
  summary: "Verify a signed receipt from a file or stdin: valid or not, who signed it, what it says",
  args: "FILE|-",
  positionals: { min: 1, max: 1 },
  options: {
    ...locationOptions,
    json: { type: "boolean", description: "print JSON" },
    signer: { type: "string", multiple: true, value: "ADDRESS", description: "accept this signer (repeatable) instead of a data dir's list, e.g. from GET /v1/receipts/pubkey" },
  },
  details: `
FILE holds JSON: {"receipt", "signature"} (as GET /v1/receipts/:id, the x-svc-receipt headers and
POST /v1/receipts/verify have them) or a receipt_minted webhook payload, also inside its delivery
envelope ("data" or "payload"). "-" reads stdin.

The signature must recover to an accepted signer: the --signer addresses, else every signer of
the data dir (--data-dir / --config, or ./data when it holds svc data; a retired signer only for
receipts dated before its retirement). With neither, the recovered address and the payload are
printed but the receipt is not called valid: nothing trusted was checked.

Exit 0 when valid, 1 when not (or not checked).`,
  run: async ({ values, positionals }, host) => {
    const source = await signerSource(values, host);
    const extracted = extract(await readInput(positionals[0]!));
    const input = typeof extracted === "string" ? null : extracted;
    let result: ReceiptVerification =
      typeof extracted === "string"
        ? { valid: false, reason: extracted, recovered_address: null, payload: null }
        : verifyReceipt(extracted.receipt, extracted.signature, source.kind === "none" ? [] : source.signers);
    // Without a trusted list the check above recovers the address but can vouch for nothing.
    if (source.kind === "none" && result.recovered_address !== null) result = { ...result, valid: false, reason: "no signer list to check against" } as ReceiptVerification;
    const signer = signerLine(source, result, input?.claimedSigner ?? null);

    if (values.json) {
      console.log(JSON.stringify({ ...result, signer_check: source.kind, signer_note: signer }, null, 2));
    } else {
      console.log(`valid:      ${result.valid ? "yes" : `no — ${result.reason}`}`);
      console.log(`recovered:  ${result.recovered_address ?? "-"}`);
      console.log(`signer:     ${signer}`);
      console.log(`payload:    ${result.payload ? JSON.stringify(result.payload, null, 2).replaceAll("\n", "\n            ") : "-"}`);
    }
    return result.valid ? EXIT_OK : EXIT_FAILURE;
  },
};

export const receiptsGroup: Group = { name: "receipts", summary: "Signed receipts: verify one", commands: [verify] };

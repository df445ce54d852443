/**
 * svc media cert show|import: the C2PA signing credential (provenance/credentials.ts). show
 * prints the chain svc signs media manifests with (created on first need if setup has not
 * made it); import replaces it with the operator's own ES256 or Ed25519 chain and key. A
 * running server keeps the credential it loaded until restarted.
 */
import { readFileSync } from "node:fs";
import { type Command, CommandFailed, type Group, locationOptions, str, UsageError } from "../../cli/command.ts";
import { importCredential } from "./provenance/credentials.ts";
import { provenanceCredential } from "./signing.ts";

function readInput(flag: string, path: string | undefined, required: boolean): string | undefined {
  if (path === undefined) {
    if (required) throw new UsageError(`--${flag} FILE is required`);
    return undefined;
  }
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new CommandFailed(`--${flag}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

const show: Command = {
  name: "media cert show",
  summary: "The C2PA certificate chain media manifests are signed with (PEM with --pem)",
  options: { ...locationOptions, pem: { type: "boolean", description: "print the chain as PEM (what GET /.well-known/c2pa/chain.pem serves)" } },
  run({ values }, host) {
    return host.withContext(values, async (ctx) => {
      const c = await provenanceCredential(ctx);
      if (values.pem) return void process.stdout.write(c.chainPem);
      console.log(`signer      ${c.subject}`);
      console.log(`algorithm   ${c.signer.alg.toUpperCase()}`);
      console.log(`sha256      ${c.fingerprint}`);
      console.log(`valid until ${c.notAfter}`);
      console.log(`chain       ${c.signer.chain.length} certificate(s), published at ${ctx.config.public_url}/.well-known/c2pa/chain.pem`);
    });
  },
};

const importCert: Command = {
  name: "media cert import",
  summary: "Sign media manifests with your own certificate chain and key (ES256 or Ed25519)",
  options: {
    ...locationOptions,
    chain: { type: "string", value: "FILE", description: "PEM certificates, the signer's first (required)" },
    key: { type: "string", value: "FILE", description: "the signer's PKCS#8 PEM private key (required; sealed with the master key on import)" },
    anchors: { type: "string", value: "FILE", description: "PEM roots svc's verify route trusts (default: the chain's last certificate)" },
  },
  details: `The key must belong to the chain's first certificate; it is checked before anything is replaced.
Restart a running svc to sign with the new chain.`,
  run({ values }, host) {
    const chainPem = readInput("chain", str(values.chain), true)!;
    const keyPem = readInput("key", str(values.key), true)!;
    const anchorsPem = readInput("anchors", str(values.anchors), false);
    return host.withContext(values, async (ctx) => {
      try {
        const c = await importCredential(ctx.paths.provenance, ctx.sealer, { chainPem, keyPem, anchorsPem });
        console.log(`imported: media manifests are now signed by ${c.subject} (${c.signer.alg.toUpperCase()}, sha256 ${c.fingerprint})`);
        console.log("restart a running svc to sign with it");
      } catch (err) {
        throw new CommandFailed(`not imported: ${(err as Error).message}`);
      }
    });
  },
};

export const mediaCli: (Command | Group)[] = [{ name: "media", summary: "Media provenance: the C2PA signing certificate", commands: [{ name: "media cert", summary: "The C2PA signing certificate: show, import", commands: [show, importCert] }] }];

/** docs/routes.md is what scripts/routes-index.ts generates from the mounted app today. */
import { expect, test } from "bun:test";
import { renderRoutesIndex, ROUTES_DOC } from "../scripts/routes-index.ts";

test("docs/routes.md is current (run `bun run docs:routes` after adding or moving a route)", async () => {
  const current = await Bun.file(ROUTES_DOC).text();
  const generated = await renderRoutesIndex();
  if (current !== generated) {
    const had = new Set(current.split("\n"));
    const now = new Set(generated.split("\n"));
    const diff = [...generated.split("\n").filter((l) => !had.has(l)).map((l) => `+ ${l}`), ...current.split("\n").filter((l) => !now.has(l)).map((l) => `- ${l}`)];
    throw new Error(`docs/routes.md is stale; run \`bun run docs:routes\`:\n${diff.slice(0, 20).join("\n")}`);
  }
  expect(generated).toContain("| GET | `/v1/keys` | session | keys | src/domains/keys/routes.ts | always |");
});

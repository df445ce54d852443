/**
 * The OpenAPI document is a valid OpenAPI 3.1 document (checked by a standard validator), for a
 * default deployment and for one with every optional group mounted, and it describes what is
 * served: every operation declares a success response, every error response is the one error
 * body, every operation behind a credential names its security scheme. (That served responses
 * match it is checked on every request the suite makes: test/support/openapi-check.ts.)
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

type Doc = { paths: Record<string, Record<string, { security?: unknown[]; responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }>> };

const everything = () =>
  makeHarness({ admin: true, metrics: true, config: (c) => ((c.passkeys.rp_id = "example.com"), (c.passkeys.origin = "https://example.com"), (c.assistant.model = "m")) });

async function documentOf(harness: Harness): Promise<Doc> {
  return (await harness.json("GET", "/openapi.json")).body as Doc;
}

describe("the OpenAPI document", () => {
  for (const [label, make] of [
    ["a default deployment", () => makeHarness()],
    ["every optional group mounted", everything],
  ] as const) {
    test(`is valid OpenAPI 3.1: ${label}`, async () => {
      h = make();
      const result = await new Validator().validate((await documentOf(h)) as never);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    });
  }

  test("every operation declares a success response, errors as the one error body, and the security of its class", async () => {
    h = everything();
    const doc = await documentOf(h);
    const problems: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(op.responses ?? {});
        // A redirect is a success (GET /v1/oauth/authorize answers 302).
        if (!statuses.some((s) => /^[23]\d\d$/.test(s))) problems.push(`${where}: no success response`);
        for (const status of statuses.filter((s) => Number(s) >= 400)) {
          const ref = op.responses![status]!.content?.["application/json"]?.schema?.$ref;
          if (ref !== "#/components/schemas/Error") problems.push(`${where} ${status}: not the error body`);
        }
        // Behind a credential: 401 is declared. (Public sign-in routes may answer 401 too: a refused signature.)
        if (op.security?.length && !statuses.includes("401")) problems.push(`${where}: a security requirement without 401`);
      }
    }
    expect(problems).toEqual([]);
  });
});

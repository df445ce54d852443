/**
 * /v1/engine: drafts and their spec_sha256, versions per slug, publish / unpublish / resolve
 * (one published version per slug), delete of drafts only, bad input, and tenancy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { type Gateway, startGateway } from "../inference/inference-support.ts";
import { createBuild, publish, resolve, session, spec, specSha256, unpublish } from "./engine-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());

/** A fresh account with its own session, so each test starts with no builds. */
function freshOwner(): string {
  return accountWithSession(g.h.ctx).session.token;
}

describe("drafts", () => {
  test("a build is a draft, the slug's next version, with a spec_sha256 anyone can recompute", async () => {
    const token = freshOwner();
    const first = await createBuild(g.h, token, { slug: "acme", spec: spec() });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      slug: "acme",
      version: 1,
      status: "draft",
      model_name: "engine/acme",
      pin: "engine/acme@1",
      spec: { model: "gpt-test", system_prompt: spec().system_prompt, parameters: { temperature_milli: 300, max_tokens: 50 } },
      published_at: null,
      retired_at: null,
    });
    expect(first.body.id).toMatch(/^eng_/);
    expect(first.body.created_at).toBe("2026-11-21T12:00:00.000Z");
    expect(first.body.spec_sha256).toBe(specSha256(first.body.spec));

    // No parameters: stored (and hashed) as an empty object, so the hash is of what GET shows.
    const second = await createBuild(g.h, token, { slug: "acme", spec: { model: "claude-test", system_prompt: "Be brief." } });
    expect(second.body).toMatchObject({ version: 2, spec: { model: "claude-test", system_prompt: "Be brief.", parameters: {} } });
    expect(second.body.spec_sha256).toBe(specSha256({ model: "claude-test", parameters: {}, system_prompt: "Be brief." }));
    const other = await createBuild(g.h, token, { slug: "other", spec: spec() });
    expect(other.body.version).toBe(1);
    // The same spec, the same fingerprint, whichever slug or version carries it.
    expect(other.body.spec_sha256).toBe(first.body.spec_sha256);

    const list = await g.h.json("GET", "/v1/engine/builds", session(token));
    expect(list.status).toBe(200);
    expect(list.body.builds.map((b: any) => b.id)).toEqual([other.body.id, second.body.id, first.body.id]);
    const acme = await g.h.json("GET", "/v1/engine/builds?slug=acme", session(token));
    expect(acme.body.builds.map((b: any) => b.version)).toEqual([2, 1]);
    const one = await g.h.json("GET", `/v1/engine/builds/${first.body.id}`, session(token));
    expect(one.status).toBe(200);
    expect(one.body).toEqual(first.body);
  });

  test("the system prompt is sealed at rest; the table holds its fingerprint, not its text", async () => {
    const token = freshOwner();
    const made = await createBuild(g.h, token, { slug: "sealed", spec: spec({ system_prompt: "SEALED-PROMPT-91ab keep this private" }) });
    const rows = g.h.ctx.db.query("SELECT * FROM engine_builds WHERE id = ?").all(made.body.id);
    expect(rows.length).toBe(1);
    expect(JSON.stringify(rows)).not.toContain("SEALED-PROMPT");
    expect(JSON.stringify(rows)).toContain(made.body.spec_sha256);
  });

  test("only drafts can be deleted; published and retired builds answer 409 build_not_draft", async () => {
    const token = freshOwner();
    const draft = await createBuild(g.h, token, { slug: "del", spec: spec() });
    const deleted = await g.h.json("DELETE", `/v1/engine/builds/${draft.body.id}`, session(token));
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: draft.body.id, deleted: true });
    expect((await g.h.json("GET", `/v1/engine/builds/${draft.body.id}`, session(token))).status).toBe(404);
    expect((await g.h.json("DELETE", `/v1/engine/builds/${draft.body.id}`, session(token))).status).toBe(404);

    const live = await createBuild(g.h, token, { slug: "del", spec: spec() });
    await publish(g.h, token, live.body.id);
    const refused = await g.h.json("DELETE", `/v1/engine/builds/${live.body.id}`, session(token));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: "build_not_draft", status: "published" });
    await unpublish(g.h, token, live.body.id);
    const retired = await g.h.json("DELETE", `/v1/engine/builds/${live.body.id}`, session(token));
    expect(retired.status).toBe(409);
    expect(retired.body.error).toMatchObject({ type: "build_not_draft", status: "retired" });
    expect((await g.h.json("GET", `/v1/engine/builds/${live.body.id}`, session(token))).body.status).toBe("retired");
  });

  test("at most 100 drafts per account (409 draft_limit_reached); publishing one makes room", async () => {
    const token = freshOwner();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await createBuild(g.h, token, { slug: `d${i % 3}`, spec: spec() })).body.id);
    const over = await createBuild(g.h, token, { slug: "d0", spec: spec() });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "draft_limit_reached", limit: 100 });
    expect((await publish(g.h, token, ids[0]!)).status).toBe(200);
    expect((await createBuild(g.h, token, { slug: "d0", spec: spec() })).status).toBe(201);
  });
});

describe("publish, unpublish, resolve", () => {
  test("one published version per slug: a second is refused until the first is unpublished; retired never resolves again", async () => {
    const token = freshOwner();
    const v1 = (await createBuild(g.h, token, { slug: "acme", spec: spec() })).body;
    const v2 = (await createBuild(g.h, token, { slug: "acme", spec: spec({ system_prompt: "Version two." }) })).body;
    const unresolved = await resolve(g.h, token, "acme");
    expect(unresolved.status).toBe(404);

    g.h.clock.advance(60_000);
    const published = await publish(g.h, token, v1.id);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ id: v1.id, status: "published", published_at: "2026-11-21T12:01:00.000Z", retired_at: null });
    // Idempotent: publishing the published build again changes nothing.
    expect((await publish(g.h, token, v1.id)).body).toEqual(published.body);
    const resolved = await resolve(g.h, token, "acme");
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual(published.body);

    const second = await publish(g.h, token, v2.id);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ type: "slug_already_published", published_build_id: v1.id, published_version: 1 });
    expect((await resolve(g.h, token, "acme")).body.id).toBe(v1.id);
    expect(g.h.ctx.db.query("SELECT count(*) AS n FROM engine_builds WHERE slug = 'acme' AND status = 'published'").get()).toEqual({ n: 1 });

    g.h.clock.advance(60_000);
    const retired = await unpublish(g.h, token, v1.id);
    expect(retired.status).toBe(200);
    expect(retired.body).toMatchObject({ status: "retired", published_at: "2026-11-21T12:01:00.000Z", retired_at: "2026-11-21T12:02:00.000Z" });
    expect((await unpublish(g.h, token, v1.id)).body).toEqual(retired.body);
    expect((await resolve(g.h, token, "acme")).status).toBe(404);

    expect((await publish(g.h, token, v2.id)).status).toBe(200);
    expect((await resolve(g.h, token, "acme")).body).toMatchObject({ id: v2.id, version: 2, spec: { system_prompt: "Version two." } });

    const again = await publish(g.h, token, v1.id);
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe("build_retired");
  });

  test("unpublishing a draft is refused (409 build_not_published)", async () => {
    const token = freshOwner();
    const draft = (await createBuild(g.h, token, { slug: "acme", spec: spec() })).body;
    const r = await unpublish(g.h, token, draft.id);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: "build_not_published", status: "draft" });
  });

  test("slugs are per account: two accounts publish the same slug, each resolves its own", async () => {
    const a = freshOwner();
    const b = freshOwner();
    const ba = (await createBuild(g.h, a, { slug: "shared", spec: spec({ system_prompt: "A's engine" }) })).body;
    const bb = (await createBuild(g.h, b, { slug: "shared", spec: spec({ system_prompt: "B's engine" }) })).body;
    expect((await publish(g.h, a, ba.id)).status).toBe(200);
    expect((await publish(g.h, b, bb.id)).status).toBe(200);
    expect((await resolve(g.h, a, "shared")).body.id).toBe(ba.id);
    expect((await resolve(g.h, b, "shared")).body.id).toBe(bb.id);
  });
});

describe("tenancy and authentication", () => {
  test("another account's build answers 404 exactly like an unknown id, on every route", async () => {
    const owner = freshOwner();
    const stranger = freshOwner();
    const build = (await createBuild(g.h, owner, { slug: "private", spec: spec() })).body;
    await publish(g.h, owner, build.id);
    const calls: [string, string][] = [
      ["GET", `/v1/engine/builds/ID`],
      ["DELETE", `/v1/engine/builds/ID`],
      ["POST", `/v1/engine/builds/ID/publish`],
      ["POST", `/v1/engine/builds/ID/unpublish`],
    ];
    for (const [method, path] of calls) {
      const theirs = await g.h.json(method, path.replace("ID", build.id), session(stranger));
      const unknown = await g.h.json(method, path.replace("ID", "eng_aaaaaaaaaaaaaaaaaaaaaaaa"), session(stranger));
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
    }
    const theirSlug = await resolve(g.h, stranger, "private");
    const noSlug = await resolve(g.h, stranger, "never-made");
    expect(theirSlug.status).toBe(404);
    expect(theirSlug.body).toEqual(noSlug.body);
    expect((await g.h.json("GET", "/v1/engine/builds", session(stranger))).body).toEqual({ builds: [] });
    // The owner's build is untouched.
    expect((await resolve(g.h, owner, "private")).body.status).toBe("published");
  });

  test("the routes take a session, not an API key", async () => {
    const key = apiKeyFor(g.h.ctx, g.accountId).token;
    const r = await g.h.json("GET", "/v1/engine/builds", { headers: bearer(key) });
    expect(r.status).toBe(401);
    expect((await g.h.json("GET", "/v1/engine/builds")).status).toBe(401);
  });
});

describe("bad input", () => {
  const long = "x".repeat(32_001);
  const cases: [string, unknown, string][] = [
    ["no slug", { spec: spec() }, "slug"],
    ["uppercase slug", { slug: "Acme", spec: spec() }, "slug"],
    ["slug with a slash", { slug: "a/b", spec: spec() }, "slug"],
    ["slug with @", { slug: "a@1", spec: spec() }, "slug"],
    ["slug ending in a hyphen", { slug: "acme-", spec: spec() }, "slug"],
    ["slug too long", { slug: "a".repeat(65), spec: spec() }, "slug"],
    ["no spec", { slug: "acme" }, "spec"],
    ["unknown top-level field", { slug: "acme", spec: spec(), extra: 1 }, "extra"],
    ["unknown spec field", { slug: "acme", spec: spec({ seed: 1 }) }, "spec.seed"],
    ["no model", { slug: "acme", spec: { system_prompt: "x" } }, "spec.model"],
    ["model not in the catalogue", { slug: "acme", spec: spec({ model: "no-such-model" }) }, "spec.model"],
    ["an embedding model", { slug: "acme", spec: spec({ model: "embed-test" }) }, "spec.model"],
    ["an engine as the model", { slug: "acme", spec: spec({ model: "engine/acme" }) }, "spec.model"],
    ["no system prompt", { slug: "acme", spec: { model: "gpt-test" } }, "spec.system_prompt"],
    ["empty system prompt", { slug: "acme", spec: spec({ system_prompt: "" }) }, "spec.system_prompt"],
    ["blank system prompt", { slug: "acme", spec: spec({ system_prompt: "   \n" }) }, "spec.system_prompt"],
    ["system prompt too long", { slug: "acme", spec: spec({ system_prompt: long }) }, "spec.system_prompt"],
    ["fractional temperature", { slug: "acme", spec: spec({ parameters: { temperature_milli: 0.7 } }) }, "spec.parameters.temperature_milli"],
    ["temperature above 2", { slug: "acme", spec: spec({ parameters: { temperature_milli: 2001 } }) }, "spec.parameters.temperature_milli"],
    ["negative top_p", { slug: "acme", spec: spec({ parameters: { top_p_milli: -1 } }) }, "spec.parameters.top_p_milli"],
    ["zero max_tokens", { slug: "acme", spec: spec({ parameters: { max_tokens: 0 } }) }, "spec.parameters.max_tokens"],
    ["unknown parameter", { slug: "acme", spec: spec({ parameters: { temperature: 0.7 } }) }, "spec.parameters.temperature"],
  ];
  for (const [name, body, param] of cases) {
    test(`${name}: 400 naming ${param}`, async () => {
      const token = freshOwner();
      const r = await createBuild(g.h, token, body);
      expect(r.status).toBe(400);
      expect(r.body.error.type).toBe("invalid_request");
      expect(r.body.error.param).toBe(param);
      expect((await g.h.json("GET", "/v1/engine/builds", session(token))).body.builds).toEqual([]);
    });
  }

  test("?slug= must be a slug", async () => {
    const r = await g.h.json("GET", "/v1/engine/builds?slug=Not%20A%20Slug", session(freshOwner()));
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("query.slug");
  });
});

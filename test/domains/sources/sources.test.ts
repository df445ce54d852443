/**
 * Source sets: creation with a fingerprint recomputed here by a separate canonical-JSON
 * implementation, closed bodies at every level (unknown fields refused, not stripped), the
 * list, one set, deletion, the public page (public sets only) and tenancy.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

/** Canonical JSON written independently of src/core/canonical-json.ts: keys sorted, no whitespace. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

const DIGEST = "a".repeat(64);
const SOURCES = [
  { url: "https://example.org/report.pdf", label: "Annual report 2025", kind: "filing" },
  { sha256: DIGEST, label: "Internal dataset", kind: "dataset" },
  { url: "https://example.org/paper", sha256: "b".repeat(64), label: "The paper", kind: "paper" },
];

function setup() {
  const h = makeHarness();
  const { account, session } = accountWithSession(h.ctx);
  return { h, accountId: account.id, auth: { headers: bearer(session.token) } };
}

const create = (h: Harness, auth: { headers: Record<string, string> }, body: unknown) => h.json("POST", "/v1/sources/sets", { ...auth, body });

describe("creating and reading source sets", () => {
  test("a set is fingerprinted over the canonical JSON of its entries, and listed, read and deleted", async () => {
    const { h, auth } = setup();
    const r = await create(h, auth, { name: "Q3 due diligence", sources: SOURCES });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "Q3 due diligence", count: 3, sources: SOURCES, public: false, public_url: null });
    expect(r.body.id).toMatch(/^sset_/);
    expect(r.body.fingerprint).toBe(sha256(canonical(SOURCES)));
    expect(r.body.created_at).toBe(new Date(h.clock.now()).toISOString());
    // The name is not part of the fingerprint: the same entries under another name fingerprint the same.
    const renamed = await create(h, auth, { name: "other name", sources: SOURCES });
    expect(renamed.body.fingerprint).toBe(r.body.fingerprint);
    // Order matters: the entries are fingerprinted as given.
    const reordered = await create(h, auth, { name: "reordered", sources: [...SOURCES].reverse() });
    expect(reordered.body.fingerprint).not.toBe(r.body.fingerprint);

    const list = await h.json("GET", "/v1/sources/sets", auth);
    expect(list.status).toBe(200);
    expect(list.body.sets.map((s: any) => s.id)).toEqual([reordered.body.id, renamed.body.id, r.body.id]);
    const one = await h.json("GET", `/v1/sources/sets/${r.body.id}`, auth);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(r.body);

    const del = await h.json("DELETE", `/v1/sources/sets/${r.body.id}`, auth);
    expect(del).toMatchObject({ status: 200, body: { id: r.body.id, deleted: true } });
    expect((await h.json("GET", `/v1/sources/sets/${r.body.id}`, auth)).status).toBe(404);
    expect((await h.json("DELETE", `/v1/sources/sets/${r.body.id}`, auth)).status).toBe(404);
    expect((await h.json("GET", "/v1/sources/sets", auth)).body.sets.length).toBe(2);
  });

  test("the public page shows a set created public, and answers 404 for private, unknown and deleted sets alike", async () => {
    const { h, auth } = setup();
    const priv = await create(h, auth, { name: "private", sources: SOURCES });
    const pub = await create(h, auth, { name: "published", sources: SOURCES.slice(0, 1), public: true });
    expect(pub.body).toMatchObject({ public: true, public_url: `${h.ctx.config.public_url}/v1/sources/public/${pub.body.id}` });

    const page = await h.json("GET", `/v1/sources/public/${pub.body.id}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ id: pub.body.id, name: "published", count: 1, sources: SOURCES.slice(0, 1), fingerprint: sha256(canonical(SOURCES.slice(0, 1))) });
    expect(page.body).not.toHaveProperty("public_url");
    expect(page.body.verify).toContain("canonical JSON");

    const missing = await h.json("GET", "/v1/sources/public/sset_unknown");
    expect(missing.status).toBe(404);
    const hidden = await h.json("GET", `/v1/sources/public/${priv.body.id}`);
    expect([hidden.status, hidden.body]).toEqual([404, missing.body]);
    await h.json("DELETE", `/v1/sources/sets/${pub.body.id}`, auth);
    const gone = await h.json("GET", `/v1/sources/public/${pub.body.id}`);
    expect([gone.status, gone.body]).toEqual([404, missing.body]);
  });

  test("an unrecognised field is refused with 400 naming it, at the top level and in an entry, and nothing is stored", async () => {
    const { h, auth } = setup();
    const cases: [unknown, string][] = [
      [{ name: "x", sources: SOURCES, description: "not a field" }, "description"],
      [{ name: "x", sources: [SOURCES[0], { ...SOURCES[1], note: "stripped?" }] }, "sources.1.note"],
      [{ name: "x", sources: [{ ...SOURCES[0], URL: "https://example.org" }] }, "sources.0.URL"],
    ];
    for (const [body, param] of cases) {
      const r = await create(h, auth, body);
      expect([param, r.status, r.body.error.param]).toEqual([param, 400, param]);
      expect(r.body.error.message).toContain("is not an accepted field");
    }
    expect((await h.json("GET", "/v1/sources/sets", auth)).body.sets).toEqual([]);
  });

  test("bad input is refused with 400 naming the field", async () => {
    const { h, auth } = setup();
    const entry = SOURCES[0]!;
    const cases: [unknown, string][] = [
      [{ sources: SOURCES }, "name"],
      [{ name: "", sources: SOURCES }, "name"],
      [{ name: "n".repeat(201), sources: SOURCES }, "name"],
      [{ name: "x" }, "sources"],
      [{ name: "x", sources: [] }, "sources"],
      [{ name: "x", sources: Array.from({ length: 101 }, () => entry) }, "sources"],
      [{ name: "x", sources: "https://example.org" }, "sources"],
      [{ name: "x", sources: [{ label: "no locator", kind: "web" }] }, "sources.0"],
      [{ name: "x", sources: [{ ...entry, url: "ftp://example.org/file" }] }, "sources.0.url"],
      [{ name: "x", sources: [{ ...entry, url: "not a url" }] }, "sources.0.url"],
      [{ name: "x", sources: [{ ...entry, url: "" }] }, "sources.0.url"],
      [{ name: "x", sources: [{ sha256: "A".repeat(64), label: "l", kind: "web" }] }, "sources.0.sha256"],
      [{ name: "x", sources: [{ sha256: "abc", label: "l", kind: "web" }] }, "sources.0.sha256"],
      [{ name: "x", sources: [{ ...entry, label: "" }] }, "sources.0.label"],
      [{ name: "x", sources: [{ url: entry.url, kind: "web" }] }, "sources.0.label"],
      [{ name: "x", sources: [{ ...entry, kind: "Web Page" }] }, "sources.0.kind"],
      [{ name: "x", sources: [{ url: entry.url, label: "l" }] }, "sources.0.kind"],
      [{ name: "x", sources: SOURCES, public: "yes" }, "public"],
    ];
    for (const [body, param] of cases) {
      const r = await create(h, auth, body);
      expect([param, r.status, r.body.error?.param]).toEqual([param, 400, param]);
    }
    expect((await h.json("GET", "/v1/sources/sets", auth)).body.sets).toEqual([]);
  });

  test("at most 200 sets per account (409 source_set_limit_reached); deleting one makes room", async () => {
    const { h, auth } = setup();
    let first = "";
    for (let i = 0; i < 200; i++) {
      const r = await create(h, auth, { name: `set ${i}`, sources: [{ sha256: DIGEST, label: `s${i}`, kind: "dataset" }] });
      expect(r.status).toBe(201);
      first ||= r.body.id;
    }
    const over = await create(h, auth, { name: "one more", sources: SOURCES });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "source_set_limit_reached", limit: 200 });
    expect((await h.json("GET", "/v1/sources/sets", auth)).body.sets.length).toBe(200);
    await h.json("DELETE", `/v1/sources/sets/${first}`, auth);
    expect((await create(h, auth, { name: "one more", sources: SOURCES })).status).toBe(201);
  });
});

describe("tenancy and authentication", () => {
  test("another account's set answers 404 exactly like an unknown id, and is not listed", async () => {
    const { h, auth } = setup();
    const mine = await create(h, auth, { name: "mine", sources: SOURCES });
    const other = accountWithSession(h.ctx);
    const theirs = { headers: bearer(other.session.token) };
    for (const method of ["GET", "DELETE"]) {
      const unknown = await h.json(method, "/v1/sources/sets/sset_doesnotexist", theirs);
      const foreign = await h.json(method, `/v1/sources/sets/${mine.body.id}`, theirs);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
    }
    expect((await h.json("GET", "/v1/sources/sets", theirs)).body.sets).toEqual([]);
    expect((await h.json("GET", `/v1/sources/sets/${mine.body.id}`, auth)).status).toBe(200);
  });

  test("the owner routes take a session: no credential answers 401", async () => {
    const { h } = setup();
    expect((await h.json("GET", "/v1/sources/sets")).status).toBe(401);
    expect((await h.json("POST", "/v1/sources/sets", { body: { name: "x", sources: SOURCES } })).status).toBe(401);
  });
});

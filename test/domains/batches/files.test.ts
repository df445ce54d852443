/**
 * /v1/files through HTTP: JSONL uploads for purpose "batch" checked line by line (the batch line
 * rules of src/domains/batches/lines.ts), the OpenAI file object and list object, tenancy and
 * scopes, deletion, the hard expiry (404 at once, purged by the job), sealing at rest and the
 * per-account storage allowance.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../../src/config.ts";
import { purgeExpiredFiles } from "../../../src/domains/files/service.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const DAY_SECS = 86_400;
const FILE_ID = /^file_[a-z2-7]{24}$/;

type FileObject = {
  id: string;
  object: "file";
  bytes: number;
  created_at: number;
  expires_at: number;
  filename: string;
  purpose: string;
  status: string;
  status_details: null;
  content_available: boolean;
  line_count: number;
};

/** One valid batch line, its parts overridable (a key set to undefined is left out). */
function line(overrides: Record<string, unknown> = {}): string {
  const value: Record<string, unknown> = {
    custom_id: "a",
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "m", messages: [{ role: "user", content: "hi" }] },
    ...overrides,
  };
  for (const k of Object.keys(value)) if (value[k] === undefined) delete value[k];
  return JSON.stringify(value);
}

/** n valid lines with distinct custom_ids, newline-terminated. */
const jsonl = (n: number, prefix = "req"): string => Array.from({ length: n }, (_, i) => `${line({ custom_id: `${prefix}-${i + 1}` })}\n`).join("");

function form(file: string | Uint8Array | null, fields: Record<string, string> = { purpose: "batch" }, filename = "x.jsonl"): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file !== null) f.append("file", new File([file], filename));
  return f;
}

function setup(config?: (c: Config) => void) {
  h = makeHarness({ config });
  const { account } = accountWithSession(h.ctx);
  const key = apiKeyFor(h.ctx, account.id);
  return { account, auth: bearer(key.token) };
}

const upload = (auth: Record<string, string>, body: FormData) => h.json("POST", "/v1/files", { headers: auth, raw: body });

async function uploadOk(auth: Record<string, string>, text: string, fields?: Record<string, string>): Promise<FileObject> {
  const r = await upload(auth, form(text, fields));
  if (r.status !== 200) throw new Error(`upload failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as FileObject;
}

const listIds = async (auth: Record<string, string>, query = ""): Promise<string[]> => {
  const r = await h.json("GET", `/v1/files${query}`, { headers: auth });
  if (r.status !== 200) throw new Error(`list failed ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body.data as FileObject[]).map((f) => f.id);
};

const count = (sql: string, ...args: string[]): number => h.ctx.db.query<{ n: number }, string[]>(sql).get(...args)!.n;

describe("POST /v1/files, GET /v1/files/:id and …/content", () => {
  test("an upload answers the OpenAI file object; GET returns the same; content is the uploaded JSONL", async () => {
    const { auth } = setup();
    const text = jsonl(3);
    const file = await uploadOk(auth, text);
    expect(file.id).toMatch(FILE_ID);
    expect(file).toMatchObject({
      object: "file",
      bytes: new TextEncoder().encode(text).byteLength,
      line_count: 3,
      purpose: "batch",
      filename: "x.jsonl",
      status: "processed",
      status_details: null,
      content_available: true,
    });
    expect(file.created_at).toBe(Math.floor(h.clock.now() / 1000));
    expect(file.expires_at).toBe(file.created_at + h.ctx.config.files.ttl_secs);
    expect(h.ctx.config.files.ttl_secs).toBe(7 * DAY_SECS);

    const got = await h.json("GET", `/v1/files/${file.id}`, { headers: auth });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(file);

    const content = await h.request("GET", `/v1/files/${file.id}/content`, { headers: auth });
    expect(content.status).toBe(200);
    expect(content.headers.get("content-type")?.split(";")[0]).toBe("application/jsonl");
    expect(await content.text()).toBe(text);
  });

  test("content is normalised: a missing final newline is added and CRLF comes back LF; bytes is the upload's size", async () => {
    const { auth } = setup();
    const lines = [line({ custom_id: "x" }), line({ custom_id: "y" })];
    const noFinal = lines.join("\n");
    const crlf = lines.map((l) => `${l}\r\n`).join("");
    for (const text of [noFinal, crlf]) {
      const file = await uploadOk(auth, text);
      expect(file.bytes).toBe(text.length);
      expect(file.line_count).toBe(2);
      const content = await h.request("GET", `/v1/files/${file.id}/content`, { headers: auth });
      expect(await content.text()).toBe(lines.map((l) => `${l}\n`).join(""));
    }
  });

  test("content longer than one page (1201 lines) comes back whole and in order", async () => {
    const { auth } = setup();
    const text = jsonl(1201, "long");
    const file = await uploadOk(auth, text);
    expect(file.line_count).toBe(1201);
    const content = await h.request("GET", `/v1/files/${file.id}/content`, { headers: auth });
    expect(await content.text()).toBe(text);
  });

  test("expires_after[seconds]=7200 gives expires_at = created_at + 7200", async () => {
    const { auth } = setup();
    const file = await uploadOk(auth, jsonl(1), { purpose: "batch", "expires_after[anchor]": "created_at", "expires_after[seconds]": "7200" });
    expect(file.expires_at).toBe(file.created_at + 7200);
  });
});

describe("bad uploads", () => {
  test("each bad file is a 400 naming the first bad line, and nothing is stored", async () => {
    const { auth } = setup();
    const ok = line();
    const cases: { name: string; file: string | Uint8Array; line?: number; contains?: string[] }[] = [
      { name: "not UTF-8", file: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), contains: ["UTF-8"] },
      { name: "empty file", file: "", contains: ["empty"] },
      { name: "blank line in the middle", file: `${line({ custom_id: "a" })}\n\n${line({ custom_id: "b" })}\n`, line: 2 },
      { name: "whitespace-only line", file: `${line({ custom_id: "a" })}\n   \n`, line: 2 },
      { name: "not JSON", file: `${ok}\n{"custom_id": "b",\n`, line: 2, contains: ["JSON"] },
      { name: "a JSON array", file: `[${ok}]\n`, line: 1, contains: ["object"] },
      { name: "unknown field", file: `${line({ custom_id: "a" })}\n${line({ custom_id: "b", priority: 1 })}\n`, line: 2, contains: ["priority"] },
      { name: "missing custom_id", file: `${line({ custom_id: undefined })}\n`, line: 1, contains: ["custom_id"] },
      { name: "empty custom_id", file: `${line({ custom_id: "" })}\n`, line: 1, contains: ["custom_id"] },
      { name: "custom_id not a string", file: `${line({ custom_id: 7 })}\n`, line: 1, contains: ["custom_id"] },
      { name: "duplicate custom_id", file: `${line({ custom_id: "dup" })}\n${line({ custom_id: "other" })}\n${line({ custom_id: "dup" })}\n`, line: 3, contains: ["line 1", "dup"] },
      { name: 'method "GET"', file: `${line({ method: "GET" })}\n`, line: 1, contains: ["method"] },
      { name: "missing method", file: `${line({ method: undefined })}\n`, line: 1, contains: ["method"] },
      { name: "unsupported url", file: `${line({ url: "/v1/images/generations" })}\n`, line: 1, contains: ["/v1/images/generations"] },
      { name: "body not an object", file: `${line({ body: "hi" })}\n`, line: 1, contains: ["body"] },
      { name: "body an array", file: `${line({ body: [] })}\n`, line: 1, contains: ["body"] },
      { name: "body without model", file: `${line({ body: { messages: [] } })}\n`, line: 1, contains: ["body.model"] },
      { name: "body.stream true", file: `${line({ body: { model: "m", messages: [], stream: true } })}\n`, line: 1, contains: ["stream"] },
    ];
    for (const c of cases) {
      const r = await upload(auth, form(c.file));
      const where = `${c.name}: ${JSON.stringify(r.body)}`;
      expect(r.status, where).toBe(400);
      expect(r.body.error.type, where).toBe("invalid_file");
      expect(r.body.error.param, where).toBe("file");
      if (c.line !== undefined) {
        expect(r.body.error.line, where).toBe(c.line);
        expect(r.body.error.message, where).toContain(`line ${c.line}`);
      } else {
        expect(r.body.error.line, where).toBeUndefined();
      }
      for (const s of c.contains ?? []) expect(r.body.error.message, where).toContain(s);
    }
    expect(await listIds(auth)).toEqual([]);
    expect(count("SELECT count(*) AS n FROM files")).toBe(0);
    expect(count("SELECT count(*) AS n FROM file_lines")).toBe(0);
  });

  test("purpose, file part and expires_after problems are 400 invalid_request naming the field", async () => {
    const { auth } = setup();
    const good = jsonl(1);
    const cases: { name: string; body: FormData; param: string }[] = [
      { name: "purpose fine-tune", body: form(good, { purpose: "fine-tune" }), param: "purpose" },
      { name: "purpose batch_output (not an upload purpose)", body: form(good, { purpose: "batch_output" }), param: "purpose" },
      { name: "purpose empty", body: form(good, { purpose: "" }), param: "purpose" },
      { name: "file a plain field, not a file part", body: (() => { const f = form(null); f.append("file", good); return f; })(), param: "file" },
      { name: "expires_after[seconds] below 3600", body: form(good, { purpose: "batch", "expires_after[seconds]": "3599" }), param: "expires_after.seconds" },
      { name: "expires_after[seconds] above files.ttl_secs", body: form(good, { purpose: "batch", "expires_after[seconds]": String(7 * DAY_SECS + 1) }), param: "expires_after.seconds" },
      { name: "expires_after[seconds] not a number", body: form(good, { purpose: "batch", "expires_after[seconds]": "soon" }), param: "expires_after.seconds" },
      { name: "expires_after[seconds] fractional", body: form(good, { purpose: "batch", "expires_after[seconds]": "3600.5" }), param: "expires_after.seconds" },
      { name: "expires_after[anchor] not created_at", body: form(good, { purpose: "batch", "expires_after[anchor]": "last_active_at", "expires_after[seconds]": "7200" }), param: "expires_after.anchor" },
    ];
    for (const c of cases) {
      const r = await upload(auth, c.body);
      const where = `${c.name}: ${JSON.stringify(r.body)}`;
      expect(r.status, where).toBe(400);
      expect(r.body.error.type, where).toBe("invalid_request");
      expect(r.body.error.param, where).toBe(c.param);
    }
    expect(await listIds(auth)).toEqual([]);
    expect(count("SELECT count(*) AS n FROM files")).toBe(0);
  });

  test("a missing purpose or file part is a 400 naming it", async () => {
    const { auth } = setup();
    const noFile = await upload(auth, form(null));
    expect(noFile.status).toBe(400);
    expect(noFile.body.error).toMatchObject({ type: "invalid_request", param: "file" });
    const noPurpose = await upload(auth, form(jsonl(1), {}));
    expect(noPurpose.status).toBe(400);
    expect(noPurpose.body.error).toMatchObject({ type: "invalid_request", param: "purpose" });
    expect(await listIds(auth)).toEqual([]);
  });

  test("more lines than files.max_lines is a 400 invalid_file; exactly max_lines is accepted", async () => {
    const { auth } = setup((c) => (c.files.max_lines = 3));
    const r = await upload(auth, form(jsonl(4)));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: "invalid_file", param: "file" });
    expect(r.body.error.message).toContain("files.max_lines");
    expect(await listIds(auth)).toEqual([]);
    const file = await uploadOk(auth, jsonl(3));
    expect(file.line_count).toBe(3);
  });

  test("a file larger than files.max_bytes is a 413 and is not stored", async () => {
    const { auth } = setup((c) => {
      c.files.max_bytes = 2048;
      c.files.max_stored_bytes_per_account = 1024 * 1024;
    });
    let text = "";
    for (let i = 1; text.length < 3000; i++) text += `${line({ custom_id: `big-${i}` })}\n`;
    expect(text.length).toBeGreaterThan(2048);
    const r = await upload(auth, form(text));
    expect(r.status).toBe(413);
    expect(r.body.error.type).toBe("payload_too_large");
    expect(await listIds(auth)).toEqual([]);
    expect(count("SELECT count(*) AS n FROM files")).toBe(0);
    expect(count("SELECT count(*) AS n FROM file_lines")).toBe(0);
  });
});

describe("GET /v1/files", () => {
  test("a list object without has_more, newest first; order=asc; limit and after page through all; purpose filters", async () => {
    const { auth } = setup();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await uploadOk(auth, jsonl(1, `f${i}`))).id);
      h.clock.advance(1000);
    }
    const newestFirst = [...made].reverse();

    const all = await h.json("GET", "/v1/files", { headers: auth });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(["data", "object"]);
    expect(all.body.object).toBe("list");
    expect(all.body).not.toHaveProperty("has_more");
    expect(all.body.data.map((f: FileObject) => f.id)).toEqual(newestFirst);
    expect(all.body.data[0]).toMatchObject({ object: "file", purpose: "batch", line_count: 1 });

    expect(await listIds(auth, "?order=asc")).toEqual(made);

    for (const [order, expected] of [["desc", newestFirst], ["asc", made]] as const) {
      const seen: string[] = [];
      let after = "";
      for (let page = 0; page < 10; page++) {
        const ids = await listIds(auth, `?order=${order}&limit=2${after ? `&after=${after}` : ""}`);
        expect(ids.length).toBeLessThanOrEqual(2);
        if (!ids.length) break;
        seen.push(...ids);
        after = ids[ids.length - 1]!;
      }
      expect(seen).toEqual([...expected]);
      expect(new Set(seen).size).toBe(seen.length);
    }

    expect(await listIds(auth, "?purpose=batch_output")).toEqual([]);
    expect(await listIds(auth, "?purpose=batch")).toEqual(newestFirst);

    const unknown = await h.json("GET", "/v1/files?after=file_aaaaaaaaaaaaaaaaaaaaaaaa", { headers: auth });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.type).toBe("invalid_request");
    const badLimit = await h.json("GET", "/v1/files?limit=0", { headers: auth });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.param).toBe("limit");
  });

  test("files uploaded within one millisecond still list in upload order and page without repeats", async () => {
    const { auth } = setup();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await uploadOk(auth, jsonl(1, `same${i}`))).id);
    expect(await listIds(auth)).toEqual([...made].reverse());
    expect(await listIds(auth, "?order=asc")).toEqual(made);
    const seen: string[] = [];
    let after = "";
    for (let page = 0; page < 10; page++) {
      const ids = await listIds(auth, `?limit=2${after ? `&after=${after}` : ""}`);
      if (!ids.length) break;
      seen.push(...ids);
      after = ids[ids.length - 1]!;
    }
    expect(seen).toEqual([...made].reverse());
  });
});

describe("tenancy and scopes", () => {
  test("another account's key gets 404 on the file, its content and its deletion, and its list is empty", async () => {
    const { auth } = setup();
    const file = await uploadOk(auth, jsonl(2));
    const other = accountWithSession(h.ctx);
    const otherAuth = bearer(apiKeyFor(h.ctx, other.account.id).token);
    for (const [method, path] of [
      ["GET", `/v1/files/${file.id}`],
      ["GET", `/v1/files/${file.id}/content`],
      ["DELETE", `/v1/files/${file.id}`],
    ] as const) {
      const r = await h.json(method, path, { headers: otherAuth });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.type).toBe("not_found");
    }
    expect(await listIds(otherAuth)).toEqual([]);
    const afterOther = await h.json("GET", "/v1/files?after=" + file.id, { headers: otherAuth });
    expect(afterOther.status).toBe(400);
    // Still there for its owner.
    expect((await h.json("GET", `/v1/files/${file.id}`, { headers: auth })).status).toBe(200);
    expect(await listIds(auth)).toEqual([file.id]);
  });

  test("unknown ids are 404", async () => {
    const { auth } = setup();
    for (const id of ["file_aaaaaaaaaaaaaaaaaaaaaaaa", "nope"]) {
      for (const [method, path] of [
        ["GET", `/v1/files/${id}`],
        ["GET", `/v1/files/${id}/content`],
        ["DELETE", `/v1/files/${id}`],
      ] as const) {
        const r = await h.json(method, path, { headers: auth });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.error.type).toBe("not_found");
      }
    }
  });

  test('a key without the "inference" scope gets 403 missing_scope; no key gets 401', async () => {
    const { account } = setup();
    const narrow = bearer(apiKeyFor(h.ctx, account.id, { scopes: ["billing:read"] }).token);
    const r = await upload(narrow, form(jsonl(1)));
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "missing_scope", scope: "inference" });
    const list = await h.json("GET", "/v1/files", { headers: narrow });
    expect(list.status).toBe(403);
    const anon = await h.json("POST", "/v1/files", { raw: form(jsonl(1)) });
    expect(anon.status).toBe(401);
    expect(count("SELECT count(*) AS n FROM files")).toBe(0);
  });
});

describe("DELETE /v1/files/:id", () => {
  test("deletes the file and its lines at once; then GET and content are 404", async () => {
    const { auth } = setup();
    const keep = await uploadOk(auth, jsonl(1, "keep"));
    const file = await uploadOk(auth, jsonl(3));
    const r = await h.json("DELETE", `/v1/files/${file.id}`, { headers: auth });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: file.id, object: "file", deleted: true });
    expect((await h.json("GET", `/v1/files/${file.id}`, { headers: auth })).status).toBe(404);
    expect((await h.json("GET", `/v1/files/${file.id}/content`, { headers: auth })).status).toBe(404);
    expect((await h.json("DELETE", `/v1/files/${file.id}`, { headers: auth })).status).toBe(404);
    expect(await listIds(auth)).toEqual([keep.id]);
    expect(count("SELECT count(*) AS n FROM file_lines WHERE file_id = ?", file.id)).toBe(0);
    expect(count("SELECT count(*) AS n FROM file_lines WHERE file_id = ?", keep.id)).toBe(1);
  });
});

describe("expiry", () => {
  test("past expires_at a file is 404 everywhere and left out of the list before any purge; the purge then removes row and lines", async () => {
    const { auth } = setup();
    const short = await uploadOk(auth, jsonl(2, "short"), { purpose: "batch", "expires_after[seconds]": "3600" });
    const long = await uploadOk(auth, jsonl(2, "long"));
    expect(short.expires_at).toBe(short.created_at + 3600);

    // One second before: still there.
    h.clock.advance(3599 * 1000);
    expect((await h.json("GET", `/v1/files/${short.id}`, { headers: auth })).status).toBe(200);
    expect(purgeExpiredFiles(h.ctx)).toBe(0);

    // At expires_at: gone from every route, though the rows are still on disk.
    h.clock.advance(1000);
    for (const [method, path] of [
      ["GET", `/v1/files/${short.id}`],
      ["GET", `/v1/files/${short.id}/content`],
      ["DELETE", `/v1/files/${short.id}`],
    ] as const) {
      const r = await h.json(method, path, { headers: auth });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.type).toBe("not_found");
    }
    expect(await listIds(auth)).toEqual([long.id]);
    expect(count("SELECT count(*) AS n FROM files WHERE id = ?", short.id)).toBe(1);
    expect(count("SELECT count(*) AS n FROM file_lines WHERE file_id = ?", short.id)).toBe(2);

    expect(purgeExpiredFiles(h.ctx)).toBe(1);
    expect(count("SELECT count(*) AS n FROM files WHERE id = ?", short.id)).toBe(0);
    expect(count("SELECT count(*) AS n FROM file_lines WHERE file_id = ?", short.id)).toBe(0);
    expect(count("SELECT count(*) AS n FROM file_lines WHERE file_id = ?", long.id)).toBe(2);
    expect((await h.json("GET", `/v1/files/${long.id}`, { headers: auth })).status).toBe(200);
  });

  test("the scheduled purge job removes files past the default ttl", async () => {
    const { auth } = setup();
    registerJobs(h.ctx);
    const file = await uploadOk(auth, jsonl(3));
    await h.ctx.scheduler.runDue();
    expect(count("SELECT count(*) AS n FROM files WHERE id = ?", file.id)).toBe(1);

    h.clock.advance(h.ctx.config.files.ttl_secs * 1000 + 60_000);
    expect((await h.json("GET", `/v1/files/${file.id}`, { headers: auth })).status).toBe(404);
    expect(await listIds(auth)).toEqual([]);
    await h.ctx.scheduler.runDue();
    expect(count("SELECT count(*) AS n FROM files WHERE id = ?", file.id)).toBe(0);
    expect(count("SELECT count(*) AS n FROM file_lines WHERE file_id = ?", file.id)).toBe(0);
  });
});

describe("sealed at rest", () => {
  test("file_lines.sealed and the database file never hold a line's plaintext", async () => {
    const { auth } = setup();
    const marker = "zebra-plaintext-marker-7f3a9c";
    const content = "quetzal-secret-prompt-51b2e8";
    const text = `${line({ custom_id: marker, body: { model: "m", messages: [{ role: "user", content }] } })}\n${line({ custom_id: `${marker}-2` })}\n`;
    const file = await uploadOk(auth, text);

    const rows = h.ctx.db.query<{ line_no: number; bytes: number; sealed: string }, [string]>("SELECT line_no, bytes, sealed FROM file_lines WHERE file_id = ? ORDER BY line_no").all(file.id);
    expect(rows.map((r) => r.line_no)).toEqual([1, 2]);
    for (const r of rows) {
      expect(r.sealed).not.toContain(marker);
      expect(r.sealed).not.toContain(content);
      expect(r.sealed).not.toContain("chat/completions");
      expect(Buffer.from(r.sealed).toString("latin1")).not.toContain(marker);
    }
    // Round trip still works.
    const served = await h.request("GET", `/v1/files/${file.id}/content`, { headers: auth });
    expect(await served.text()).toBe(text);

    h.ctx.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const raw = readFileSync(join(h.dir, "svc.db"));
    expect(raw.includes(Buffer.from("file_lines"))).toBe(true); // the right file: it holds the schema
    expect(raw.includes(Buffer.from(marker))).toBe(false);
    expect(raw.includes(Buffer.from(content))).toBe(false);
    for (const suffix of ["-wal", "-shm"]) {
      let bytes: Buffer | null = null;
      try {
        bytes = readFileSync(join(h.dir, `svc.db${suffix}`));
      } catch {
        // absent: nothing to check
      }
      if (bytes) expect(bytes.includes(Buffer.from(marker))).toBe(false);
    }
  });
});

describe("storage allowance", () => {
  test("an upload past files.max_stored_bytes_per_account is 409 file_storage_full until space is freed", async () => {
    const { auth } = setup((c) => {
      c.files.max_bytes = 2048;
      c.files.max_stored_bytes_per_account = 2048;
    });
    const text = jsonl(8, "q"); // a little over 1 KiB: one fits, two do not
    const size = text.length;
    expect(size).toBeGreaterThan(1024);
    expect(size).toBeLessThanOrEqual(2048);
    const first = await uploadOk(auth, text);
    const refused = await upload(auth, form(text));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: "file_storage_full", stored_bytes: size, limit_bytes: 2048 });
    expect(await listIds(auth)).toEqual([first.id]);

    // Another account has its own allowance.
    const other = accountWithSession(h.ctx);
    const otherAuth = bearer(apiKeyFor(h.ctx, other.account.id).token);
    await uploadOk(otherAuth, text);

    expect((await h.json("DELETE", `/v1/files/${first.id}`, { headers: auth })).status).toBe(200);
    const second = await uploadOk(auth, text);
    expect(await listIds(auth)).toEqual([second.id]);

    // An expired file no longer counts, even before the purge.
    h.clock.advance(h.ctx.config.files.ttl_secs * 1000);
    await uploadOk(auth, text);
  });
});

/**
 * Served against declared: every response a test gets through the harness is checked against
 * the app's own OpenAPI document — its status must be one the operation declares, and a JSON
 * body must match that status's schema (JSON Schema 2020-12, with Ajv). A mismatch throws where
 * the test made the request, naming the operation, the status and the first differences.
 *
 * When SVC_OPENAPI_COVERAGE names a file, each checked (method, path, status) is appended to it;
 * scripts/openapi-coverage.ts then reports operations no test saw succeed.
 */
import { appendFileSync } from "node:fs";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Doc = { paths: Record<string, Record<string, Operation>> };
type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };

interface Template {
  path: string;
  pattern: RegExp;
  /** Literal segments first: /v1/receipts/shared/:id wins over /v1/receipts/:id/share (spec §9.3). */
  literals: number;
}

interface Checker {
  templates: Template[];
  doc: Doc;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const checkers = new Map<string, Checker>();

function checkerFor(docText: string): Checker {
  let checker = checkers.get(docText);
  if (checker) return checker;
  const doc = JSON.parse(docText) as Doc;
  // strict off: OpenAPI keeps annotations (example, x-…) that are not JSON Schema keywords.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // Formats Elysia's numeric and boolean string schemas name (query parameters): not response formats.
  for (const format of ["integer", "numeric", "boolean", "ObjectString", "ArrayString"]) ajv.addFormat(format, true);
  ajv.addSchema(doc as object, "doc");
  const templates = Object.keys(doc.paths)
    .map((path) => ({
      path,
      // A trailing {path} is the rest of the path, any depth (core/openapi.ts restOfPath).
      pattern: new RegExp(`^${path.replace(/[.+?^$()|[\]\\]/g, "\\$&").replace(/\/\{path\}$/, "/.+").replace(/\{[^}]+\}/g, "[^/]+")}$`),
      literals: path.split("/").filter((s) => s && !s.startsWith("{")).length,
    }))
    .sort((a, b) => b.literals - a.literals);
  checker = { templates, doc, ajv, validators: new Map() };
  checkers.set(docText, checker);
  return checker;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/**
 * Throws when `response` (already read into `text`) is not what the document declares for
 * `method pathname`. Paths the document does not list (an unknown route) must answer 404/405
 * with the error body.
 */
export function checkServed(docText: string, method: string, pathname: string, status: number, contentType: string | null, text: string): void {
  const checker = checkerFor(docText);
  const lower = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
  const template = checker.templates.find((t) => t.pattern.test(pathname) && checker.doc.paths[t.path]![lower]);
  if (!template) {
    if ((status === 404 || status === 405 || status === 204) && (status === 204 || isErrorBody(text))) return;
    throw new Error(`${method} ${pathname} answered ${status}, but the OpenAPI document has no ${method} operation for this path`);
  }
  const op = checker.doc.paths[template.path]![lower]!;
  const declared = op.responses?.[String(status)] ?? op.responses?.[`${String(status)[0]}XX`] ?? op.responses?.default;
  if (process.env.SVC_OPENAPI_COVERAGE) appendFileSync(process.env.SVC_OPENAPI_COVERAGE, `${method.toUpperCase()} ${template.path} ${status}\n`);
  if (!declared) {
    throw new Error(`${method} ${template.path} answered ${status} (${text.slice(0, 200)}), which its OpenAPI entry does not declare (declared: ${Object.keys(op.responses ?? {}).join(", ")})`);
  }
  if (method.toUpperCase() === "HEAD" || status === 204 || !text) return;
  const media = (contentType ?? "").split(";")[0]!.trim();
  const content = declared.content ?? {};
  if (!Object.keys(content).length) return;
  const entry = content[media] ?? (media === "application/json" ? undefined : Object.entries(content).find(([type]) => type.startsWith(media.split("/")[0]!) || type === "*/*")?.[1]);
  if (!entry) throw new Error(`${method} ${template.path} ${status} answered ${media || "no content type"}; its OpenAPI entry declares ${Object.keys(content).join(", ")}`);
  if (media !== "application/json" || !entry.schema) return;
  const key = pointer("paths", template.path, lower, "responses", String(status) in (op.responses ?? {}) ? String(status) : `${String(status)[0]}XX`, "content", media, "schema");
  let validate = checker.validators.get(key);
  if (!validate) {
    validate = checker.ajv.getSchema(`doc#/${key}`);
    if (!validate) throw new Error(`no schema at ${key}`);
    checker.validators.set(key, validate);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${template.path} ${status} declared application/json but its body is not JSON: ${text.slice(0, 200)}`);
  }
  if (!validate(body)) {
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "(body)"} ${e.message}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`);
    throw new Error(`${method} ${template.path} ${status}: the body does not match its OpenAPI schema: ${problems.join("; ")}\nbody: ${text.slice(0, 400)}`);
  }
}

function isErrorBody(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: { type?: unknown; message?: unknown } };
    return typeof body.error?.type === "string" && typeof body.error.message === "string";
  } catch {
    return false;
  }
}

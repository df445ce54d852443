/**
 * TypeBox models of the files routes: the OpenAI file object (with svc's content_available and
 * line_count), its list object, and the multipart upload.
 */
import { type DocumentDecoration, t } from "elysia";

const closed = { additionalProperties: false } as const;
const Unix = t.Integer({ description: "Unix seconds" });

export const FILE_LIMIT = { min: 1, max: 200, default: 200 };

export const FileParams = t.Object({ id: t.String({ description: "file_… id" }) });

export const UploadBody = t.Object(
  {
    file: t.Unknown({ description: "the JSONL file (multipart file part); each line {custom_id, method, url, body}" }),
    purpose: t.Unknown({ description: '"batch"' }),
    "expires_after[anchor]": t.Optional(t.Unknown({ description: '"created_at"' })),
    "expires_after[seconds]": t.Optional(t.Unknown({ description: "a shorter life than files.ttl_secs, from 3600 seconds" })),
  },
  { additionalProperties: true, description: "multipart/form-data, as the OpenAI SDKs send it" },
);

export const FileObject = t.Object(
  {
    id: t.String(),
    object: t.Literal("file"),
    bytes: t.Integer({ minimum: 0 }),
    created_at: Unix,
    expires_at: Unix,
    filename: t.String(),
    purpose: t.String({ description: "batch (uploaded) or batch_output (a batch's output or error file)" }),
    status: t.Literal("processed"),
    status_details: t.Null(),
    content_available: t.Boolean({ description: "svc: false once the content was destroyed (an input file after its batch ended): GET …/content then answers 410" }),
    line_count: t.Integer({ minimum: 0, description: "svc: JSONL lines" }),
  },
  closed,
);

export const FileList = t.Object({ object: t.Literal("list"), data: t.Array(FileObject, { description: `at most ${FILE_LIMIT.max}` }) }, { ...closed, description: "List object (no has_more): page on with after=<last id>" });

export const ListQuery = t.Object(
  {
    purpose: t.Optional(t.String({ description: "only files of this purpose" })),
    after: t.Optional(t.String({ description: "a file id: the files after it in this order" })),
    limit: t.Optional(t.String({ description: `${FILE_LIMIT.min}–${FILE_LIMIT.max}, default ${FILE_LIMIT.default}; larger values are clamped` })),
    order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")], { description: "by creation; default desc (newest first)" })),
  },
  closed,
);

export const Deleted = t.Object({ id: t.String(), object: t.Literal("file"), deleted: t.Literal(true) }, closed);

const ERROR_REF = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };

/** The content route's OpenAPI responses: JSONL, or gone. */
export const ContentResponses: NonNullable<DocumentDecoration["responses"]> = {
  200: { description: "The file's JSONL, one object per line", content: { "application/jsonl": { schema: { type: "string" as const } } } },
  410: { description: "file_content_gone: the content was destroyed when the file's batch ended (the record stays until it expires)", ...ERROR_REF },
};

/**
 * Content pieces both directions share: images, documents, tool arguments and plain text.
 */
import { invalidField } from "../../../core/errors.ts";
import type { AnthContentBlock, AnthImageBlock, ChatContentPart, ChatFilePart, ChatImagePart, Json } from "./types.ts";

/** The image types Anthropic accepts in a base64 source; anything else is refused up front. */
const ANTHROPIC_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** `data:<media type>;base64,<data>` → its parts, or null for any other URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | null {
  const m = /^data:([^;,]+)((?:;[^;,]*)*);base64,(.*)$/s.exec(url);
  if (!m) return null;
  return { mediaType: m[1]!.toLowerCase(), data: m[3]! };
}

/** OpenAI image_url (a data: URL or an http(s) URL) → an Anthropic image block. */
export function chatImageToAnthropic(part: ChatImagePart, param: string): AnthImageBlock {
  const url = typeof part.image_url === "object" && part.image_url ? part.image_url.url : undefined;
  if (typeof url !== "string" || url === "") throw invalidField(`${param}.image_url.url`, "must be a data: or http(s) URL");
  const inline = parseDataUrl(url);
  if (inline) {
    if (!ANTHROPIC_IMAGE_TYPES.has(inline.mediaType)) {
      throw invalidField(`${param}.image_url.url`, `image type ${inline.mediaType} is not supported by this model's provider (jpeg, png, gif, webp)`);
    }
    return { type: "image", source: { type: "base64", media_type: inline.mediaType, data: inline.data } };
  }
  if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
  throw invalidField(`${param}.image_url.url`, "must be a data: or http(s) URL");
}

/** Anthropic image block → OpenAI image_url part (base64 becomes a data: URL). */
export function anthropicImageToChat(block: AnthImageBlock, param: string): ChatImagePart {
  const s = block.source as Json;
  if (s.type === "base64" && typeof s.data === "string" && typeof s.media_type === "string") {
    return { type: "image_url", image_url: { url: `data:${s.media_type};base64,${s.data}` } };
  }
  if (s.type === "url" && typeof s.url === "string") return { type: "image_url", image_url: { url: s.url } };
  throw invalidField(`${param}.source`, `image source type ${String(s.type)} cannot be sent to this model's provider`);
}

/** OpenAI file part with inline PDF data → Anthropic document block. */
export function chatFileToAnthropic(part: ChatFilePart, param: string): AnthContentBlock {
  const data = part.file?.file_data;
  if (typeof data !== "string" || data === "") {
    throw invalidField(`${param}.file`, "only inline file_data can be sent to this model's provider (file_id needs the OpenAI Files API)");
  }
  const inline = parseDataUrl(data);
  const mediaType = inline?.mediaType ?? "application/pdf";
  if (mediaType !== "application/pdf") throw invalidField(`${param}.file.file_data`, `file type ${mediaType} is not supported (PDF only)`);
  return { type: "document", source: { type: "base64", media_type: mediaType, data: inline?.data ?? data } };
}

/** Anthropic document block → OpenAI content part: base64 PDF as a file part, plain text as text. */
export function anthropicDocumentToChat(block: Json, param: string): ChatContentPart {
  const s = (block.source ?? {}) as Json;
  if (s.type === "base64" && typeof s.data === "string") {
    const file: ChatFilePart["file"] = { file_data: `data:${String(s.media_type ?? "application/pdf")};base64,${s.data}` };
    if (typeof block.title === "string") file.filename = block.title;
    return { type: "file", file };
  }
  if (s.type === "text" && typeof s.data === "string") return { type: "text", text: s.data };
  throw invalidField(`${param}.source`, `document source type ${String(s.type)} cannot be sent to this model's provider`);
}

/**
 * A tool call's JSON argument string → the object Anthropic wants as `input`. Models do emit
 * broken JSON; rather than fail every later turn that replays such a call, the raw text is kept
 * under `_raw_arguments` so nothing the model said is lost. An empty string means no arguments.
 */
export function parseToolArguments(raw: string | undefined | null): Json {
  if (raw == null || raw.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Json;
  } catch {
    // fall through: keep the text
  }
  return { _raw_arguments: raw };
}

/** Anthropic tool input → the JSON string OpenAI carries in `arguments`. */
export const stringifyToolInput = (input: unknown): string => JSON.stringify(input ?? {});

/**
 * The text of a content value that may only hold text (system prompts, tool results), joined
 * without separators because the parts are one message. Non-text parts are refused by name.
 */
export function textOnly(content: unknown, param: string): string {
  if (typeof content === "string") return content;
  if (content == null) return "";
  if (!Array.isArray(content)) throw invalidField(param, "must be a string or an array of text parts");
  return content
    .map((part: Json, i) => {
      if (part?.type === "text" && typeof part.text === "string") return part.text;
      if (part?.type === "input_text" && typeof part.text === "string") return part.text;
      throw invalidField(`${param}[${i}]`, `only text parts are allowed here, got ${String(part?.type)}`);
    })
    .join("");
}

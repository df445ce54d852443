/** What a POST /v1/videos/generations body asks for, checked against the model before any money moves. */
import { invalidField } from "../../../core/errors.ts";
import type { CatalogModel } from "../../inference/index.ts";
import { sniffFormat } from "../provenance/formats.ts";
import { IMAGE_MAX_BYTES } from "./limits.ts";

/** The duration asked for: one of the model's (its first by default). */
export function pickSeconds(model: CatalogModel, raw: number | string | undefined): number {
  const durations = model.durations ?? [];
  if (raw === undefined) return durations[0]!;
  const seconds = typeof raw === "number" ? raw : Number(raw);
  if (!durations.includes(seconds)) throw invalidField("seconds", `must be one of ${durations.join(", ")} for model ${model.id}`);
  return seconds;
}

export interface FirstFrame {
  bytes: Uint8Array;
  mime: "image/png" | "image/jpeg" | "image/webp";
}

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[a-z0-9=-]+)*;base64,/i;

/**
 * image-to-video's first frame: base64, or a data: URL holding base64. Its type is what its
 * bytes say (never the URL's claim): PNG, JPEG or WebP.
 */
export function decodeImage(raw: string): FirstFrame {
  const b64 = raw.startsWith("data:") ? raw.replace(DATA_URL, "") : raw;
  if (b64 === raw && raw.startsWith("data:")) throw invalidField("image", "a data: URL must hold base64 (data:image/png;base64,…)");
  const compact = b64.replace(/\s+/g, "");
  if (Math.floor((compact.length * 3) / 4) > IMAGE_MAX_BYTES + 3) throw invalidField("image", `decodes to more than ${IMAGE_MAX_BYTES} bytes`);
  if (!compact.length || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) throw invalidField("image", "must be base64, or a data: URL of base64");
  const bytes = new Uint8Array(Buffer.from(compact, "base64"));
  const format = sniffFormat(bytes);
  if (format !== "image/png" && format !== "image/jpeg" && format !== "image/webp") throw invalidField("image", "must be a PNG, JPEG or WebP image");
  return { bytes, mime: format };
}

/**
 * The asset formats svc signs and reads, recognised by their first bytes (never by what a
 * caller or an upstream claims): the C2PA library needs the format, and a wrong one reads as
 * "no manifest".
 */
export type AssetFormat = "image/png" | "image/jpeg" | "image/webp" | "video/mp4";

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);

export function sniffFormat(bytes: Uint8Array): AssetFormat | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  // ISO BMFF: a box of type "ftyp" first (MP4, MOV and their kin).
  if (startsWith(bytes, [0x66, 0x74, 0x79, 0x70], 4)) return "video/mp4";
  return null;
}

export const EXTENSION: Record<AssetFormat, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "video/mp4": "mp4" };

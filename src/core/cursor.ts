/**
 * Opaque pagination cursors (spec §2.2). A cursor is the keyset position of the last row a page
 * returned, MAC'd together with its scope (endpoint and account). A cursor that was edited,
 * truncated, or minted for another endpoint or account fails the MAC and answers 400: a list
 * never silently restarts at page one.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ApiError } from "./errors.ts";

export type Position = (string | number)[];

const MAC_BYTES = 12;

export const invalidCursor = (): ApiError =>
  new ApiError(400, "invalid_cursor", "cursor is not valid for this list; pass back exactly the next_cursor you received", { param: "cursor" });

export class Cursors {
  constructor(private readonly key: Uint8Array) {}

  encode(scope: string, position: Position): string {
    const payload = Buffer.from(JSON.stringify(position)).toString("base64url");
    return `${payload}.${this.mac(scope, payload).toString("base64url")}`;
  }

  decode(scope: string, cursor: string): Position {
    const dot = cursor.indexOf(".");
    if (dot <= 0) throw invalidCursor();
    const payload = cursor.slice(0, dot);
    // Compare the MAC as text: base64url decoding would ignore trailing junk.
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.mac(scope, payload).toString("base64url"));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
    try {
      const position: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      if (!Array.isArray(position) || !position.every((v) => typeof v === "string" || typeof v === "number")) throw invalidCursor();
      return position as Position;
    } catch {
      throw invalidCursor();
    }
  }

  private mac(scope: string, payload: string): Buffer {
    return createHmac("sha256", this.key).update(scope).update("\n").update(payload).digest().subarray(0, MAC_BYTES);
  }
}

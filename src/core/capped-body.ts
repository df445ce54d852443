/**
 * Reading an answer from a server svc does not control, with a ceiling: a declared length over
 * the limit is refused before reading, and the body is read no further than the limit (a server
 * that lies about, or omits, its length cannot make svc buffer more). Callers say what "too
 * large" means in their own errors; a connection cut mid-body rejects as the stream does.
 */

/** The body's bytes, or null (the rest cancelled) when it is larger than `max`. */
export async function readCapped(res: Response, max: number): Promise<Uint8Array | null> {
  if (Number(res.headers.get("content-length") ?? "0") > max) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop returns the stream's iterator, which cancels the rest.
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

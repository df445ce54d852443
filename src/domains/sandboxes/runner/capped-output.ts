/**
 * Reads one output pipe of a sandbox up to a byte cap. Past the cap it keeps nothing more,
 * stops reading and calls `onOverflow` (the runner kills the run): a program printing
 * gigabytes costs the gateway at most `cap` bytes of memory and a few pipe-sized reads.
 */
export interface CappedOutput {
  bytes: Uint8Array;
  truncated: boolean;
}

export async function readCapped(
  stream: ReadableStream<Uint8Array>,
  cap: number,
  onChunk: ((chunk: Uint8Array) => void) | undefined,
  onOverflow: () => void,
): Promise<CappedOutput> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!value || value.byteLength === 0) continue;
      const room = cap - kept;
      const part = value.byteLength <= room ? value : value.subarray(0, room);
      if (part.byteLength > 0) {
        chunks.push(part);
        kept += part.byteLength;
        onChunk?.(part);
      }
      if (value.byteLength > room) {
        truncated = true;
        onOverflow();
        break;
      }
    }
  } finally {
    // Closing our end also makes further writes fail with EPIPE in the sandbox.
    await reader.cancel().catch(() => {});
  }
  return { bytes: concat(chunks, kept), truncated };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * One client connection as a raw TCP socket with an HTTP/1.1 request written by hand: what the
 * benches use to hold thousands of connections open, past the 256 requests this process's own
 * fetch would run at once, at a few KiB each.
 */

export interface RawHandlers {
  /** The socket is open; the request is written as soon as this returns. */
  opened(socket: { end(): void; terminate(): void }): void;
  data(bytes: Uint8Array): void;
  /** Closed, failed or refused; `why` says which. */
  gone(why: string): void;
}

export function connectRaw(hostname: string, port: number, request: string, on: RawHandlers): void {
  Bun.connect({
    hostname,
    port,
    socket: {
      open(socket) {
        on.opened(socket);
        socket.write(request);
      },
      data(_socket, bytes) {
        on.data(bytes);
      },
      close() {
        on.gone("closed by svc");
      },
      error(_socket, err) {
        on.gone(err.message);
      },
      connectError(_socket, err) {
        on.gone(`connect: ${err.message}`);
      },
    },
  }).catch((err: unknown) => on.gone(`connect: ${err instanceof Error ? err.message : String(err)}`));
}

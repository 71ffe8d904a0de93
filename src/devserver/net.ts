/** Small network probes for the server bootstrap. */
import { connect, createServer } from 'node:net';

/** True when something accepts TCP connections at host:port within the timeout. */
export function portAnswers(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The host and port of an address on this machine (`127.0.0.1:7233`, `localhost:7233`, `[::1]:7233`). */
export function localEndpoint(address: string): { host: string; port: number } | undefined {
  const m = /^(127\.0\.0\.1|localhost|\[::1\]):(\d+)$/.exec(address);
  if (!m) return undefined;
  return { host: m[1] === '[::1]' ? '::1' : (m[1] as string), port: Number(m[2]) };
}

/**
 * False at once when nothing listens at a local address (the connection is refused), where a gRPC
 * client would retry until its timeout; true for any other address, and for a local port that
 * accepts within the timeout, which a Temporal probe then asks.
 */
export async function mayAnswer(address: string, timeoutMs: number): Promise<boolean> {
  const local = localEndpoint(address);
  return local === undefined || (await portAnswers(local.port, local.host, timeoutMs));
}

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePromise(port));
    });
  });
}

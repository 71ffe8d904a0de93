/**
 * A local HTTP server for benches: it records every request body and
 * answers with what the bench's responder returns, so the real provider
 * adapters send their real wire format to it.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Recorded {
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: benches read arbitrary wire JSON
  body: any;
}

export interface RecordingServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function startRecordingServer(respond: (req: Recorded) => unknown): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: Recorded = { url: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
      requests.push(recorded);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(respond(recorded)));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

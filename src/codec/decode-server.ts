/**
 * `lev codec-server`: Temporal's remote codec protocol over HTTP
 * (docs/reference/operating.md#the-codec-server), so the Web UI and the
 * `temporal` CLI (`--codec-endpoint`) show decrypted payloads to whoever
 * runs it with the key. `POST /decode` and `POST /encode` take and return
 * `{ "payloads": [{ "metadata": { k: base64 }, "data": base64 }] }`. Browsers
 * call it from the UI's page, so it answers CORS for the origins it is told
 * to trust and for no other: a page elsewhere cannot have it decrypt.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** The largest request accepted: a page of history's payloads, with room. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

function fromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('the request is over 64 MiB');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  host: string;
  port: number;
  /** Origins whose pages may call it (the Web UI's); `*` trusts every origin. */
  allowOrigins: readonly string[];
}

export interface RunningCodecServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export function codecHandler(opts: Pick<CodecServerOptions, 'codec' | 'allowOrigins'>) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origin = req.headers.origin;
    if (origin && (opts.allowOrigins.includes('*') || opts.allowOrigins.includes(origin))) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      res.setHeader('Vary', 'Origin');
    } else if (origin) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`origin ${origin} is not allowed (--allow-origin)\n`);
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== '/decode' && path !== '/encode')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('POST /decode or /encode\n');
      return;
    }
    let payloads: Payload[];
    try {
      const parsed = JSON.parse(await body(req)) as { payloads?: JsonPayload[] };
      payloads = (parsed.payloads ?? []).map(fromJson);
    } catch (err) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`not a payloads document: ${(err as Error).message}\n`);
      return;
    }
    try {
      const out = path === '/decode' ? await opts.codec.decode(payloads) : await opts.codec.encode(payloads);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ payloads: out.map(toJson) }));
    } catch (err) {
      res.writeHead(422, { 'Content-Type': 'text/plain' }).end(`${(err as Error).message}\n`);
    }
  };
}

export async function startCodecServer(opts: CodecServerOptions): Promise<RunningCodecServer> {
  const handle = codecHandler(opts);
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`${err.message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    server,
    url: `http://${host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

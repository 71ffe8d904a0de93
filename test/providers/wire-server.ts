/**
 * A local HTTP server that plays a provider's wire format: it records every
 * request and answers with whatever the test queued, including a reset
 * socket or no answer at all.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { passGate } from '../../src/providers/scripted-gates.js';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary wire JSON
  body: any;
}

export type Reply =
  /**
   * `delayMs`: answer only after that long, as a slow model does. `gate`: answer only once the test
   * opens that gate, as a scripted turn's gate (docs/scripted.md#gates), so a call stays in flight
   * while the test acts.
   */
  | { status?: number; headers?: Record<string, string>; json: unknown; delayMs?: number; gate?: string }
  /** A body sent as given (an HTML page, broken JSON, a huge answer). */
  | { status?: number; headers?: Record<string, string>; body: string }
  | { reset: true }
  | { hang: true }
  /** Headers and the start of a JSON body, then silence. */
  | { stall: true };

export type Responder = (req: RecordedRequest) => Reply;

export interface WireServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Requests answered or refused so far and not yet done, and the most there ever were at once. */
  readonly concurrency: { now: number; peak: number };
  respond(responder: Responder): void;
  close(): Promise<void>;
}

export async function startWireServer(initial: Responder): Promise<WireServer> {
  let responder = initial;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const concurrency = { now: 0, peak: 0 };

  const server: Server = createServer((req, res) => {
    concurrency.now++;
    concurrency.peak = Math.max(concurrency.peak, concurrency.now);
    let open = true;
    const done = () => {
      if (open) concurrency.now--;
      open = false;
    };
    res.on('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw,
        body,
      };
      requests.push(recorded);
      const reply = responder(recorded);
      if ('reset' in reply) {
        req.socket.destroy();
        return;
      }
      if ('hang' in reply) return;
      if ('stall' in reply) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id": "chatcmpl-1", ');
        return;
      }
      if ('body' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(reply.body);
        return;
      }
      const send = () => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(JSON.stringify(reply.json));
      };
      if (reply.gate) void passGate(reply.gate, {}).then(send);
      else if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
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
    concurrency,
    respond(next) {
      responder = next;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An OpenAI chat completion whose message is `message`, as the wire server answers it. */
export function chatCompletion(
  message: Record<string, unknown>,
  finish = 'stop',
  usage: Record<string, unknown> = { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 },
) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage,
  };
}

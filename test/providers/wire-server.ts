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
  | { stall: true }
  /**
   * Server-Sent Events, one `data:` line per chunk (a `Named` chunk with its `event:` line), then
   * OpenAI's `[DONE]` unless `done` is false; `cut` closes the socket after them instead, `hold`
   * keeps it open and silent.
   */
  | { sse: unknown[]; cut?: boolean; hold?: boolean; done?: boolean };

/** An SSE event with a name, as Anthropic sends them. */
export class Named {
  constructor(
    readonly event: string,
    readonly data: unknown,
  ) {}
}

function sseText(chunk: unknown): string {
  const data = `data: ${JSON.stringify(chunk instanceof Named ? chunk.data : chunk)}\n\n`;
  return chunk instanceof Named ? `event: ${chunk.event}\n${data}` : data;
}

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
      if ('sse' in reply) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const chunk of reply.sse) res.write(sseText(chunk));
        if (reply.cut) setTimeout(() => req.socket.destroy(), 20);
        else if (!reply.hold) res.end(reply.done === false ? '' : 'data: [DONE]\n\n');
        return;
      }
      if ('body' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(reply.body);
        return;
      }
      // A streamed request gets a whole answer as its events (docs/reference/events.md#the-token-channel).
      const events = (reply.status ?? 200) < 300 ? streamOf(recorded, reply.json) : undefined;
      const send = () => {
        if (events) {
          res.writeHead(200, { 'content-type': 'text/event-stream', ...(reply.headers ?? {}) });
          for (const chunk of events.chunks) res.write(sseText(chunk));
          res.end(events.done ? 'data: [DONE]\n\n' : '');
          return;
        }
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(JSON.stringify(reply.json));
      };
      if (reply.gate) void passGate(reply.gate, {}).then(send);
      else if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  // The server never closes an idle connection itself: a test process busy for longer than a keep-alive
  // timeout (loading a provider's SDK on a loaded machine) would otherwise send its next request on a socket
  // whose timer fires first, and read ECONNRESET. The client closes idle sockets on its own clock.
  server.keepAliveTimeout = 0;
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

/** An Anthropic message answering `text`, as the wire server answers it. */
export function anthropicMessage(text: string, model = 'claude-sonnet-4-5') {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  };
}

/**
 * An OpenAI chat completion as the chunks of its stream: the text in two halves, each tool call
 * with its arguments in two halves, the finish reason, then the usage; undefined for an answer
 * that is not a completion (the test then gets it as JSON).
 */
export function completionChunks(json: unknown): unknown[] | undefined {
  // biome-ignore lint/suspicious/noExplicitAny: tests build arbitrary wire JSON
  const completion = json as any;
  const choice = completion?.choices?.[0];
  if (!choice?.message) return undefined;
  const head = {
    id: completion.id ?? 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: completion.model ?? 'gpt-4o',
  };
  const text: string = choice.message.content ?? '';
  const half = Math.ceil(text.length / 2);
  const chunks: unknown[] = [];
  for (const part of [text.slice(0, half), text.slice(half)])
    if (part) chunks.push({ ...head, choices: [{ index: 0, delta: { content: part }, finish_reason: null }] });
  for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
    const args: string = call.function?.arguments ?? '';
    const cut = Math.ceil(args.length / 2);
    chunks.push({
      ...head,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: call.id,
                type: 'function',
                function: { name: call.function?.name, arguments: args.slice(0, cut) },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    chunks.push({
      ...head,
      choices: [
        { index: 0, delta: { tool_calls: [{ index, function: { arguments: args.slice(cut) } }] }, finish_reason: null },
      ],
    });
  }
  chunks.push({ ...head, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] });
  if (completion.usage) chunks.push({ ...head, choices: [], usage: completion.usage });
  return chunks;
}

/** A whole answer as the events of its stream, when the request asked for one in its provider's way. */
function streamOf(req: RecordedRequest, json: unknown): { chunks: unknown[]; done: boolean } | undefined {
  if (req.url.includes(':streamGenerateContent')) {
    const chunks = generateChunks(json);
    return chunks && { chunks, done: false };
  }
  if (req.body?.stream !== true) return undefined;
  // Only OpenAI ends its stream with `[DONE]`.
  const chat = completionChunks(json);
  if (chat) return { chunks: chat, done: true };
  const events = messageEvents(json);
  return events && { chunks: events, done: false };
}

function isMessage(json: unknown): boolean {
  return (json as { type?: unknown } | null)?.type === 'message';
}

function halves(text: string): string[] {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].filter((p) => p !== '');
}

/**
 * An Anthropic message as its named events: message_start (with the input usage), a ping, each
 * block started, its text or its input JSON in two halves, stopped, then message_delta with the
 * stop reason and the output usage, and message_stop; undefined for an answer that is no message.
 */
export function messageEvents(json: unknown): Named[] | undefined {
  if (!isMessage(json)) return undefined;
  // biome-ignore lint/suspicious/noExplicitAny: tests build arbitrary wire JSON
  const message = json as any;
  const { output_tokens, ...inputUsage } = message.usage ?? {};
  const events = [
    new Named('message_start', {
      type: 'message_start',
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage, output_tokens: 1 },
      },
    }),
    new Named('ping', { type: 'ping' }),
  ];
  for (const [index, block] of (message.content ?? []).entries()) {
    if (block.type === 'text') {
      events.push(
        new Named('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        }),
      );
      for (const text of halves(block.text))
        events.push(
          new Named('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
        );
    } else {
      events.push(
        new Named('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      for (const partial_json of halves(JSON.stringify(block.input)))
        events.push(
          new Named('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json },
          }),
        );
    }
    events.push(new Named('content_block_stop', { type: 'content_block_stop', index }));
  }
  events.push(
    new Named('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence ?? null },
      usage: { output_tokens: output_tokens ?? 0 },
    }),
    new Named('message_stop', { type: 'message_stop' }),
  );
  return events;
}

/**
 * A Gemini response as the chunks of its stream: each text part in two halves, every other part
 * in a chunk of its own, the finish reason and the usage on the last; undefined for an answer with
 * no candidates.
 */
export function generateChunks(json: unknown): unknown[] | undefined {
  // biome-ignore lint/suspicious/noExplicitAny: tests build arbitrary wire JSON
  const response = json as any;
  const candidate = response?.candidates?.[0];
  if (!candidate) return undefined;
  const chunk = (parts: unknown[]) => ({
    candidates: [{ index: 0, content: { role: 'model', parts } }],
    ...(response.modelVersion ? { modelVersion: response.modelVersion } : {}),
  });
  const chunks = [];
  for (const part of candidate.content?.parts ?? []) {
    if (typeof part.text === 'string' && !part.thought)
      for (const text of halves(part.text)) chunks.push(chunk([{ ...part, text }]));
    else chunks.push(chunk([part]));
  }
  const last = chunk([]);
  last.candidates[0] = { ...last.candidates[0], finishReason: candidate.finishReason } as (typeof last.candidates)[0];
  chunks.push({ ...last, ...(response.usageMetadata ? { usageMetadata: response.usageMetadata } : {}) });
  return chunks;
}

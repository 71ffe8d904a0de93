import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildMessagesRequest,
  getProvider,
  isProviderError,
  MAX_CACHE_MARKERS,
  type ProviderError,
  toActivityFailure,
} from '../../src/providers/index.js';
import type { PromptMessage } from '../../src/shapes/content.js';
import { sampleRequest } from './fixtures.js';
import { Named, type Reply, startWireServer, type WireServer } from './wire-server.js';

const KEY = 'sk-ant-api03-Zq8Xw2Lm5Np7Rt9Vy1Bc';
const MODEL = 'anthropic:claude-sonnet-5-5';

function message(content: unknown[], stop = 'end_turn', usage: Record<string, unknown> = {}) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5-5',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: {
      input_tokens: 100,
      output_tokens: 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...usage,
    },
  };
}

function anthropicError(status: number, type: string, msg: string, headers: Record<string, string> = {}): Reply {
  return { status, headers, json: { type: 'error', error: { type, message: msg } } };
}

let server: WireServer;

beforeAll(async () => {
  server = await startWireServer(() => ({ json: message([{ type: 'text', text: 'ok' }]) }));
});
afterAll(() => server.close());

function anthropic(extraEnv: Record<string, string> = {}) {
  return getProvider(MODEL, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, ...extraEnv });
}

async function send(req = sampleRequest(MODEL)) {
  server.respond(() => ({ json: message([{ type: 'text', text: 'ok' }]) }));
  await anthropic().infer(req);
  return server.requests.at(-1)!;
}

async function failureOf(reply: Reply, extraEnv: Record<string, string> = {}): Promise<ProviderError> {
  server.respond(() => reply);
  try {
    await anthropic(extraEnv).infer(sampleRequest(MODEL));
  } catch (err) {
    if (isProviderError(err)) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

function cacheMarkerCount(body: {
  system?: { cache_control?: unknown }[];
  messages: { content: { cache_control?: unknown }[] }[];
}) {
  const sys = (body.system ?? []).filter((b) => b.cache_control).length;
  const msgs = body.messages.flatMap((m) => m.content).filter((b) => b.cache_control).length;
  return sys + msgs;
}

describe('Anthropic request', () => {
  it('sends system blocks in order with their cache markers, grouped tool results, tools, no streaming', async () => {
    const req = await send();
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/messages');
    expect(req.raw).not.toContain(KEY);
    expect(Object.values(req.headers).join(' ')).toContain(KEY);
    const body = req.body;
    expect(body.model).toBe('claude-sonnet-5-5');
    expect(body.max_tokens).toBe(1024);
    expect(body.stream).toBe(false);
    expect(body.system).toEqual([
      { type: 'text', text: '## pinned\nYou are a careful engineer.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: '## stage_instructions\nPlan the fix first.' },
      { type: 'text', text: '## scratch\nnothing yet', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing test in a.ts' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'call_2', name: 'grep', input: { pattern: 'expect' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'export const a = 1;' },
          { type: 'tool_result', tool_use_id: 'call_2', content: '[no-match] nothing found', is_error: true },
          { type: 'text', text: 'Go on.' },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      {
        name: 'read_file',
        description: 'Read a file from the workdir.',
        input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
      {
        name: 'grep',
        description: 'Search files for a pattern.',
        input_schema: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
      },
    ]);
  });

  it('puts a message cache marker on the last block of that message, tool results included', async () => {
    const base = sampleRequest(MODEL);
    const messages: PromptMessage[] = base.messages.map((m, i) => (i === 3 ? { ...m, cache: true } : m));
    const body = (await send({ ...base, messages })).body;
    const results = body.messages[2].content;
    expect(results[1]).toMatchObject({ tool_use_id: 'call_2', cache_control: { type: 'ephemeral' } });
    expect(results[0].cache_control).toBeUndefined();
    expect(results[2].cache_control).toBeUndefined();
    expect(cacheMarkerCount(body)).toBe(3);
  });

  it('keeps at most four cache markers, the latest ones', async () => {
    const base = sampleRequest(MODEL);
    const system = ['a', 'b', 'c', 'd'].map((t) => ({ text: `## ${t}`, cache: true }));
    const messages: PromptMessage[] = base.messages.map((m, i) => (i === 0 || i === 4 ? { ...m, cache: true } : m));
    const body = (await send({ ...base, system, messages })).body;
    expect(cacheMarkerCount(body)).toBe(MAX_CACHE_MARKERS);
    expect(body.system.map((b: { cache_control?: unknown }) => Boolean(b.cache_control))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(body.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.messages[2].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
  });

  it('merges adjacent same-role messages and leaves out blank system blocks', async () => {
    const base = sampleRequest(MODEL);
    const body = (
      await send({
        ...base,
        system: [{ text: '  ' }, { text: '## only' }],
        messages: [
          { role: 'user', content: 'one' },
          { role: 'user', content: 'two' },
          { role: 'assistant', content: 'three' },
          { role: 'assistant', content: 'four' },
          { role: 'user', content: 'five' },
        ],
      })
    ).body;
    expect(body.system).toEqual([{ type: 'text', text: '## only' }]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'three' },
          { type: 'text', text: 'four' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'five' }] },
    ]);
  });

  it('keeps the request valid when a call or a result lost its partner', async () => {
    const base = sampleRequest(MODEL);
    const body = (
      await send({
        ...base,
        messages: [
          { role: 'user', content: 'start' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'lost', name: 'grep', arguments: {} }] },
          { role: 'user', content: 'next' },
          { role: 'tool', toolCallId: 'gone', toolName: 'read_file', content: 'old output' },
          {
            role: 'assistant',
            content: 'done?',
            toolCalls: [{ id: 'kept', name: 'grep', arguments: { pattern: 'a' } }],
          },
          { role: 'tool', toolCallId: 'kept', toolName: 'grep', content: 'a.ts:1' },
        ],
      })
    ).body;
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'start' },
          { type: 'text', text: 'next' },
          { type: 'text', text: 'Result of read_file (gone):\nold output' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'done?' },
          { type: 'tool_use', id: 'kept', name: 'grep', input: { pattern: 'a' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'kept', content: 'a.ts:1' }] },
    ]);
  });

  it('always produces alternating roles, paired tool blocks and at most four markers', () => {
    const ids = ['c1', 'c2', 'c3'];
    const msg: fc.Arbitrary<PromptMessage> = fc.oneof(
      fc.record({ role: fc.constant('user' as const), content: fc.string(), cache: fc.boolean() }),
      fc.record({
        role: fc.constant('assistant' as const),
        content: fc.string(),
        toolCalls: fc
          .uniqueArray(fc.constantFrom(...ids), { maxLength: 3 })
          .map((xs) => xs.map((id) => ({ id, name: 'grep', arguments: { q: id } }))),
        cache: fc.boolean(),
      }),
      fc.record({
        role: fc.constant('tool' as const),
        toolCallId: fc.constantFrom(...ids),
        toolName: fc.constant('grep'),
        content: fc.string(),
        cache: fc.boolean(),
      }),
    );
    const sys = fc.array(fc.record({ text: fc.string({ minLength: 1 }), cache: fc.boolean() }), { maxLength: 6 });
    fc.assert(
      fc.property(sys, fc.array(msg, { maxLength: 14 }), (system, messages) => {
        const body = buildMessagesRequest({ ...sampleRequest(MODEL), system, messages });
        const wire = body.messages as {
          role: string;
          content: { type: string; id?: string; tool_use_id?: string }[];
        }[];
        let markers = ((body.system ?? []) as { cache_control?: unknown }[]).filter((b) => b.cache_control).length;
        for (const [i, m] of wire.entries()) {
          expect(m.content.length).toBeGreaterThan(0);
          if (i > 0) expect(m.role).not.toBe(wire[i - 1]!.role);
          markers += m.content.filter((b) => (b as { cache_control?: unknown }).cache_control).length;
          const uses = m.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
          const results = m.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
          if (uses.length > 0) {
            const next = wire[i + 1]?.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) ?? [];
            for (const id of uses) expect(next).toContain(id);
          }
          if (results.length > 0) {
            const prev = wire[i - 1]?.content.filter((b) => b.type === 'tool_use').map((b) => b.id) ?? [];
            for (const id of results) expect(prev).toContain(id);
            const firstOther = m.content.findIndex((b) => b.type !== 'tool_result');
            if (firstOther >= 0) expect(m.content.slice(firstOther).some((b) => b.type === 'tool_result')).toBe(false);
          }
        }
        expect(markers).toBeLessThanOrEqual(MAX_CACHE_MARKERS);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Anthropic response', () => {
  it('maps text, tool calls, stop reason and usage including cache reads and writes', async () => {
    server.respond(() => ({
      json: message(
        [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'b.ts' } },
          { type: 'tool_use', id: 'toolu_2', name: 'grep', input: 'not an object' },
        ],
        'tool_use',
        { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: 800, cache_creation_input_tokens: 50 },
      ),
    }));
    const res = await anthropic().infer(sampleRequest(MODEL));
    expect(res.text).toBe('Checking.');
    expect(res.toolCalls).toEqual([{ id: 'toolu_1', name: 'read_file', arguments: { path: 'b.ts' } }]);
    expect(res.invalidToolCalls).toEqual([
      expect.objectContaining({ id: 'toolu_2', name: 'grep', raw: '"not an object"' }),
    ]);
    expect(res.stopReason).toBe('tool_calls');
    expect(res.usage).toEqual({ promptTokens: 950, completionTokens: 40, cacheReadTokens: 800, cacheWriteTokens: 50 });
    expect(res.reportedPromptTokens).toBe(950);
  });

  it('maps end_turn and max_tokens', async () => {
    server.respond(() => ({ json: message([{ type: 'text', text: 'fin' }], 'end_turn') }));
    expect((await anthropic().infer(sampleRequest(MODEL))).stopReason).toBe('end');
    server.respond(() => ({ json: message([{ type: 'text', text: 'cut' }], 'max_tokens') }));
    expect((await anthropic().infer(sampleRequest(MODEL))).stopReason).toBe('max_tokens');
  });
});

describe('Anthropic failures', () => {
  const nonRetryable: Array<[string, Reply, string, string]> = [
    [
      '400',
      anthropicError(400, 'invalid_request_error', 'messages: field required'),
      'bad-request',
      'ProviderBadRequest',
    ],
    ['401', anthropicError(401, 'authentication_error', 'invalid x-api-key'), 'auth', 'ProviderAuth'],
    ['403', anthropicError(403, 'permission_error', 'no access'), 'forbidden', 'ProviderForbidden'],
    ['404', anthropicError(404, 'not_found_error', 'model: claude-9'), 'not-found', 'ProviderNotFound'],
    [
      'prompt too long',
      anthropicError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      'context-length',
      'ProviderContextLength',
    ],
    [
      '413',
      anthropicError(413, 'request_too_large', 'Request exceeds the maximum size'),
      'context-length',
      'ProviderContextLength',
    ],
  ];
  for (const [name, reply, kind, type] of nonRetryable) {
    it(`maps ${name} to a non-retryable ${kind}`, async () => {
      const err = await failureOf(reply);
      expect(err.kind).toBe(kind);
      expect(err.retryable).toBe(false);
      const failure = toActivityFailure(err);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.type).toBe(type);
    });
  }

  it('honours Retry-After seconds and HTTP dates on a 429', async () => {
    const secs = await failureOf(
      anthropicError(429, 'rate_limit_error', 'Number of request tokens exceeded', { 'retry-after': '12' }),
    );
    expect(secs.kind).toBe('rate-limit');
    expect(secs.retryAfterMs).toBe(12_000);
    expect(toActivityFailure(secs)).toMatchObject({
      nonRetryable: false,
      type: 'ProviderRateLimit',
      nextRetryDelay: 12_000,
    });
    const at = new Date(Date.now() + 20_000).toUTCString();
    const dated = await failureOf(anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': at }));
    expect(dated.retryAfterMs).toBeGreaterThan(15_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(20_000);
  });

  for (const status of [500, 503, 529]) {
    it(`maps ${status} to a retryable server error`, async () => {
      const err = await failureOf(
        anthropicError(status, status === 529 ? 'overloaded_error' : 'api_error', 'try later'),
      );
      expect(err.kind).toBe('server');
      expect(err.status).toBe(status);
      expect(err.retryable).toBe(true);
      expect(toActivityFailure(err)).toMatchObject({ nonRetryable: false, type: 'ProviderServer' });
    });
  }

  it('maps a reset connection and a silent server to retryable failures', async () => {
    const reset = await failureOf({ reset: true });
    expect(reset.kind).toBe('connection');
    expect(reset.retryable).toBe(true);
    const hung = await failureOf({ hang: true }, { LEVIATH_PROVIDER_TIMEOUT_MS: '250' });
    expect(hung.kind).toBe('timeout');
    expect(toActivityFailure(hung)).toMatchObject({ nonRetryable: false, type: 'ProviderTimeout' });
  });

  it('never puts the API key in an error message', async () => {
    server.respond((r) => anthropicError(401, 'authentication_error', `bad key ${JSON.stringify(r.headers)} ${KEY}`));
    let caught: unknown;
    try {
      await anthropic().infer(sampleRequest(MODEL));
    } catch (err) {
      caught = err;
    }
    const err = caught as ProviderError;
    expect(err.kind).toBe('auth');
    expect(err.message).toContain('ANTHROPIC_API_KEY');
    expect(err.message).not.toContain(KEY);
    expect(toActivityFailure(err).message).not.toContain(KEY);
  });

  it('asks for ANTHROPIC_API_KEY when it is missing', () => {
    expect(() => getProvider(MODEL, {})).toThrow(/set ANTHROPIC_API_KEY/);
  });
});

describe('Anthropic streaming (docs/reference/events.md#the-token-channel)', () => {
  async function streamed(reply: Reply, extraEnv: Record<string, string> = {}) {
    server.respond(() => reply);
    const seen: string[] = [];
    const res = await anthropic(extraEnv).infer(sampleRequest(MODEL), { onText: (t) => seen.push(t) });
    return { res, seen, body: server.requests.at(-1)!.body };
  }

  async function streamFailure(reply: Reply, extraEnv: Record<string, string> = {}): Promise<ProviderError> {
    try {
      await streamed(reply, extraEnv);
    } catch (err) {
      if (isProviderError(err)) return err;
      throw err;
    }
    throw new Error('expected the call to fail');
  }

  const start = new Named('message_start', {
    type: 'message_start',
    message: { ...message([]), stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } },
  });
  const textBlock = new Named('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  });
  const delta = (text: string) =>
    new Named('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });

  it('asks for a stream when the caller reads the text, and assembles the same reply: text only', async () => {
    const whole = message([{ type: 'text', text: 'All done here.' }], 'end_turn', { output_tokens: 5 });
    server.respond(() => ({ json: whole }));
    const plain = await anthropic().infer(sampleRequest(MODEL));
    expect(server.requests.at(-1)!.body.stream).toBe(false);
    const { res, seen, body } = await streamed({ json: whole });
    expect(body.stream).toBe(true);
    expect(res).toEqual(plain);
    expect(seen).toEqual(['All don', 'All done here.']);
  });

  it('assembles text, tool calls from their input JSON, the stop reason and usage with cache figures', async () => {
    const whole = message(
      [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'b.ts' } },
        { type: 'tool_use', id: 'toolu_2', name: 'grep', input: 'not an object' },
        { type: 'tool_use', id: 'toolu_3', name: 'list', input: {} },
        { type: 'text', text: 'Then more.' },
      ],
      'tool_use',
      { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: 800, cache_creation_input_tokens: 50 },
    );
    server.respond(() => ({ json: whole }));
    const plain = await anthropic().infer(sampleRequest(MODEL));
    const { res, seen } = await streamed({ json: whole });
    expect(res).toEqual(plain);
    expect(res.toolCalls).toEqual([
      { id: 'toolu_1', name: 'read_file', arguments: { path: 'b.ts' } },
      { id: 'toolu_3', name: 'list', arguments: {} },
    ]);
    expect(res.invalidToolCalls).toEqual([expect.objectContaining({ id: 'toolu_2', raw: '"not an object"' })]);
    expect(res.usage).toEqual({ promptTokens: 950, completionTokens: 40, cacheReadTokens: 800, cacheWriteTokens: 50 });
    // Each time the text so far, its blocks joined as the whole reply's are.
    expect(seen).toEqual(['Check', 'Checking.', 'Checking.\nThen ', 'Checking.\nThen more.']);
  });

  it('takes the usage message_delta reports over message_start', async () => {
    const { res } = await streamed({
      sse: [
        start,
        textBlock,
        delta('Hi'),
        new Named('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'max_tokens', stop_sequence: null },
          usage: { output_tokens: 9, input_tokens: 12, cache_read_input_tokens: 30, cache_creation_input_tokens: 4 },
        }),
        new Named('message_stop', { type: 'message_stop' }),
      ],
      done: false,
    });
    expect(res.stopReason).toBe('max_tokens');
    expect(res.usage).toEqual({ promptTokens: 46, completionTokens: 9, cacheReadTokens: 30, cacheWriteTokens: 4 });
  });

  it('retries a stream cut mid-way, or one that ends without its stop reason, as a connection error', async () => {
    const cut = await streamFailure({ sse: [start, textBlock, delta('Half a rep')], cut: true });
    expect(cut.kind).toBe('connection');
    expect(cut.retryable).toBe(true);
    expect(cut.message).toContain('the stream ended before the reply was complete');
    expect(toActivityFailure(cut)).toMatchObject({ nonRetryable: false, type: 'ProviderConnection' });
    const unfinished = await streamFailure({ sse: [start, textBlock, delta('No end')], done: false });
    expect(unfinished.kind).toBe('connection');
    expect(unfinished.retryable).toBe(true);
  });

  it('maps a stream that stalls mid-way to a retryable timeout', async () => {
    const err = await streamFailure({ stall: true }, { LEVIATH_PROVIDER_TIMEOUT_MS: '300' });
    expect(err.kind).toBe('timeout');
    expect(err.retryable).toBe(true);
  });

  it('classifies an error event by its type: overloaded is a retryable server error, a bad request is not', async () => {
    const overloaded = await streamFailure({
      sse: [
        start,
        textBlock,
        delta('Wor'),
        new Named('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ],
      done: false,
    });
    expect(overloaded.kind).toBe('server');
    expect(overloaded.status).toBe(529);
    expect(overloaded.retryable).toBe(true);
    expect(overloaded.message).toContain('Overloaded');
    const refused = await streamFailure({
      sse: [new Named('error', { type: 'error', error: { type: 'invalid_request_error', message: 'bad tools' } })],
      done: false,
    });
    expect(refused.kind).toBe('bad-request');
    expect(refused.retryable).toBe(false);
  });

  it('lets a caller that aborts mid-stream see its abort, not a provider failure', async () => {
    server.respond(() => ({ sse: [start, textBlock, delta('Stop me')], hold: true }));
    const abort = new AbortController();
    const err = await anthropic()
      .infer(sampleRequest(MODEL), { signal: abort.signal, onText: () => abort.abort() })
      .catch((e: unknown) => e);
    expect(abort.signal.aborted).toBe(true);
    expect(isProviderError(err)).toBe(false);
  });

  it('keeps the error a server answers a streamed request with', async () => {
    const err = await streamFailure(anthropicError(529, 'overloaded_error', 'try later'));
    expect(err.kind).toBe('server');
  });

  it('reads an answer that comes whole as the reply and hands its text over once', async () => {
    server.respond(() => ({ body: JSON.stringify(message([{ type: 'text', text: 'Whole, not streamed.' }])) }));
    const seen: string[] = [];
    const res = await anthropic().infer(sampleRequest(MODEL), { onText: (t) => seen.push(t) });
    expect(server.requests.at(-1)!.body.stream).toBe(true);
    expect(res.text).toBe('Whole, not streamed.');
    expect(seen).toEqual(['Whole, not streamed.']);
  });
});

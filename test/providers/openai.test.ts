import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProvider, isProviderError, ProviderError, toActivityFailure } from '../../src/providers/index.js';
import type { InferenceResponse } from '../../src/providers/provider.js';
import { sampleRequest } from './fixtures.js';
import { chatCompletion, type Reply, startWireServer, type WireServer } from './wire-server.js';

const KEY = 'sk-test-4f9c2a7e1b8d6c3a5e0f';

function openaiError(
  status: number,
  message: string,
  code: string | null = null,
  headers: Record<string, string> = {},
): Reply {
  return { status, headers, json: { error: { message, type: 'invalid_request_error', code, param: null } } };
}

let server: WireServer;

beforeAll(async () => {
  server = await startWireServer(() => ({ json: chatCompletion({ content: 'ok' }) }));
});
afterAll(() => server.close());

function openai(extraEnv: Record<string, string> = {}) {
  return getProvider('openai:gpt-4o', {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: `${server.url}/v1`,
    ...extraEnv,
  });
}

async function failureOf(reply: Reply, extraEnv: Record<string, string> = {}): Promise<ProviderError> {
  server.respond(() => reply);
  try {
    await openai(extraEnv).infer(sampleRequest('openai:gpt-4o'));
  } catch (err) {
    if (isProviderError(err)) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAI-compatible request', () => {
  it('sends one system message, tool calls out, tool results in, tools, no streaming', async () => {
    server.respond(() => ({ json: chatCompletion({ content: 'ok' }) }));
    await openai().infer(sampleRequest('openai:gpt-4o', { temperature: 0.3 }));
    const req = server.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body;
    expect(body.model).toBe('gpt-4o');
    expect(body.stream).toBe(false);
    expect(body.max_completion_tokens).toBe(1024);
    expect(body.temperature).toBe(0.3);
    expect(body.messages[0]).toEqual({
      role: 'system',
      content:
        '## pinned\nYou are a careful engineer.\n\n## stage_instructions\nPlan the fix first.\n\n## scratch\nnothing yet',
    });
    expect(body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Fix the failing test in a.ts' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
          { id: 'call_2', type: 'function', function: { name: 'grep', arguments: '{"pattern":"expect"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
      { role: 'tool', tool_call_id: 'call_2', content: '[no-match] nothing found' },
      { role: 'user', content: 'Go on.' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a file from the workdir.',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      },
      {
        type: 'function',
        function: {
          name: 'grep',
          description: 'Search files for a pattern.',
          parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
        },
      },
    ]);
    expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('sends max_tokens, no tools key and a dummy key to a local Ollama', async () => {
    server.respond(() => ({ json: chatCompletion({ content: 'hi' }) }));
    const ollama = getProvider('ollama:qwen2.5-coder:7b', { OLLAMA_BASE_URL: `${server.url}/v1` });
    const res = await ollama.infer(sampleRequest('ollama:qwen2.5-coder:7b', { tools: [], system: [] }));
    const req = server.requests.at(-1)!;
    expect(ollama.name).toBe('ollama');
    expect(req.body.model).toBe('qwen2.5-coder:7b');
    expect(req.body.max_tokens).toBe(1024);
    expect(req.body.max_completion_tokens).toBeUndefined();
    expect(req.body.tools).toBeUndefined();
    expect(req.body.messages[0].role).toBe('user');
    expect(req.headers.authorization).toBe('Bearer ollama');
    expect(res.text).toBe('hi');
  });

  it('sends null content for an assistant turn that only calls tools', async () => {
    server.respond(() => ({ json: chatCompletion({ content: 'ok' }) }));
    const req = sampleRequest('openai:gpt-4o');
    req.messages[1] = {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: {} }],
    };
    req.messages.splice(3, 1);
    await openai().infer(req);
    expect(server.requests.at(-1)!.body.messages[2].content).toBeNull();
  });
});

describe('OpenAI-compatible response', () => {
  it('maps text, tool calls, usage with cached tokens and the reported prompt size', async () => {
    server.respond(() => ({
      json: chatCompletion(
        {
          content: 'Reading both.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } },
            { id: 'c2', type: 'function', function: { name: 'grep', arguments: '' } },
          ],
        },
        'tool_calls',
        { prompt_tokens: 900, completion_tokens: 30, total_tokens: 930, prompt_tokens_details: { cached_tokens: 512 } },
      ),
    }));
    const res = await openai().infer(sampleRequest('openai:gpt-4o'));
    expect(res).toEqual<InferenceResponse>({
      text: 'Reading both.',
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: { path: 'b.ts' } },
        { id: 'c2', name: 'grep', arguments: {} },
      ],
      invalidToolCalls: [],
      stopReason: 'tool_calls',
      usage: { promptTokens: 900, completionTokens: 30, cacheReadTokens: 512, cacheWriteTokens: 0 },
      reportedPromptTokens: 900,
    });
  });

  it('keeps malformed or non-object arguments as invalid tool calls instead of failing', async () => {
    server.respond(() => ({
      json: chatCompletion(
        {
          content: null,
          tool_calls: [
            { id: 'bad1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.ts"' } },
            { id: 'bad2', type: 'function', function: { name: 'grep', arguments: '["x"]' } },
            { id: 'ok', type: 'function', function: { name: 'grep', arguments: '{"pattern":"y"}' } },
          ],
        },
        'tool_calls',
      ),
    }));
    const res = await openai().infer(sampleRequest('openai:gpt-4o'));
    expect(res.text).toBe('');
    expect(res.toolCalls).toEqual([{ id: 'ok', name: 'grep', arguments: { pattern: 'y' } }]);
    expect(res.invalidToolCalls.map((c) => [c.id, c.name, c.raw])).toEqual([
      ['bad1', 'read_file', '{"path": "a.ts"'],
      ['bad2', 'grep', '["x"]'],
    ]);
    expect(res.invalidToolCalls[0]!.error).toMatch(/not valid JSON/);
    expect(res.invalidToolCalls[1]!.error).toMatch(/an array, not a JSON object/);
    expect(res.stopReason).toBe('tool_calls');
  });

  it('maps finish reasons and tolerates a server that reports no usage', async () => {
    server.respond(() => ({ json: { ...chatCompletion({ content: 'cut' }, 'length'), usage: undefined } }));
    const res = await openai().infer(sampleRequest('openai:gpt-4o'));
    expect(res.stopReason).toBe('max_tokens');
    expect(res.usage.promptTokens).toBe(0);
    expect(res.reportedPromptTokens).toBeUndefined();
  });
});

describe('OpenAI-compatible failures', () => {
  const cases: Array<{ name: string; reply: Reply; kind: string; status?: number; type: string }> = [
    {
      name: '400',
      reply: openaiError(400, 'Unrecognized request argument'),
      kind: 'bad-request',
      status: 400,
      type: 'ProviderBadRequest',
    },
    {
      name: '401',
      reply: openaiError(401, 'Incorrect API key provided'),
      kind: 'auth',
      status: 401,
      type: 'ProviderAuth',
    },
    {
      name: '403',
      reply: openaiError(403, 'Project does not have access'),
      kind: 'forbidden',
      status: 403,
      type: 'ProviderForbidden',
    },
    {
      name: '404',
      reply: openaiError(404, 'The model `gpt-9` does not exist'),
      kind: 'not-found',
      status: 404,
      type: 'ProviderNotFound',
    },
    {
      name: 'context length',
      reply: openaiError(400, "This model's maximum context length is 128000 tokens.", 'context_length_exceeded'),
      kind: 'context-length',
      status: 400,
      type: 'ProviderContextLength',
    },
    {
      name: 'vLLM context length (no code)',
      reply: openaiError(
        400,
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
      ),
      kind: 'context-length',
      status: 400,
      type: 'ProviderContextLength',
    },
  ];
  for (const c of cases) {
    it(`maps ${c.name} to a non-retryable ${c.kind}`, async () => {
      const err = await failureOf(c.reply);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.kind).toBe(c.kind);
      expect(err.code).toBe(`provider-${c.kind}`);
      expect(err.retryable).toBe(false);
      expect(err.status).toBe(c.status);
      const failure = toActivityFailure(err);
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.type).toBe(c.type);
      expect(failure.message).toBe(`[${err.code}] ${err.message}`);
    });
  }

  it('honours Retry-After in seconds on a 429', async () => {
    const err = await failureOf(openaiError(429, 'Rate limit reached', 'rate_limit_exceeded', { 'retry-after': '7' }));
    expect(err.kind).toBe('rate-limit');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(7000);
    expect(err.message).toMatch(/retried after 7s/);
    const failure = toActivityFailure(err);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('ProviderRateLimit');
    expect(failure.nextRetryDelay).toBe(7000);
  });

  it('honours Retry-After as an HTTP date on a 429', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    const err = await failureOf(openaiError(429, 'Slow down', null, { 'retry-after': at }));
    expect(err.kind).toBe('rate-limit');
    expect(err.retryAfterMs).toBeGreaterThan(25_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(toActivityFailure(err).nextRetryDelay).toBe(err.retryAfterMs);
  });

  it('maps 500 to a retryable server error with default backoff', async () => {
    const err = await failureOf(openaiError(500, 'The server had an error'));
    expect(err.kind).toBe('server');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBeUndefined();
    const failure = toActivityFailure(err);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('ProviderServer');
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('maps 503 with retry-after-ms to a retryable server error', async () => {
    const err = await failureOf(openaiError(503, 'Overloaded', null, { 'retry-after-ms': '1500' }));
    expect(err.kind).toBe('server');
    expect(err.status).toBe(503);
    expect(err.retryAfterMs).toBe(1500);
    expect(toActivityFailure(err).nextRetryDelay).toBe(1500);
  });

  it('maps a reset connection to a retryable connection error', async () => {
    const before = server.requests.length;
    const err = await failureOf({ reset: true });
    expect(err.kind).toBe('connection');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain(server.url);
    expect(toActivityFailure(err).type).toBe('ProviderConnection');
    expect(server.requests.length).toBe(before + 1);
  });

  it('maps a server that never answers to a retryable timeout', async () => {
    // A hang that the 300 ms deadline did not end would outlast the test's own timeout.
    const err = await failureOf({ hang: true }, { LEVIATH_PROVIDER_TIMEOUT_MS: '300' });
    expect(err.kind).toBe('timeout');
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/300 ms/);
    expect(toActivityFailure(err).type).toBe('ProviderTimeout');
  });

  it('maps a server that sends headers and then stalls to a retryable timeout', async () => {
    const err = await failureOf({ stall: true }, { LEVIATH_PROVIDER_TIMEOUT_MS: '300' });
    expect(err.kind).toBe('timeout');
    expect(err.code).toBe('provider-timeout');
    expect(toActivityFailure(err).nonRetryable).toBe(false);
  });

  it('maps an HTML page sent with status 200 to a retryable provider-bad-response', async () => {
    const err = await failureOf({
      headers: { 'content-type': 'text/html' },
      body: '<html><body>502 Bad Gateway</body></html>',
    });
    expect(err.code).toBe('provider-bad-response');
    expect(err.message).toContain('502 Bad Gateway');
    expect(err.message).toContain('will be retried');
    expect(toActivityFailure(err)).toMatchObject({ nonRetryable: false, type: 'ProviderBadResponse' });
  });

  it('maps malformed JSON to provider-bad-response', async () => {
    const err = await failureOf({ body: '{"id": "chatcmpl-1", "choices": [' });
    expect(err.code).toBe('provider-bad-response');
    expect(err.message).toMatch(/not valid JSON/);
  });

  it('maps JSON without choices to provider-bad-response and choices: [] to provider-empty-answer', async () => {
    expect((await failureOf({ json: { id: 'x', object: 'chat.completion' } })).code).toBe('provider-bad-response');
    const empty = await failureOf({ json: { ...chatCompletion({ content: 'x' }), choices: [] } });
    expect(empty.code).toBe('provider-empty-answer');
    expect(toActivityFailure(empty)).toMatchObject({ nonRetryable: false, type: 'ProviderEmptyAnswer' });
  });

  it('refuses an answer over the size limit with a non-retryable provider-answer-too-large', async () => {
    const huge = JSON.stringify(chatCompletion({ content: 'x'.repeat(20 * 1024 * 1024) }));
    const err = await failureOf({ body: huge });
    expect(err.code).toBe('provider-answer-too-large');
    const failure = toActivityFailure(err);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/^\[provider-answer-too-large\] /);
  });

  it('says "will be retried" until the last attempt, then how many attempts failed', async () => {
    const err = await failureOf(openaiError(500, 'boom'));
    expect(toActivityFailure(err, { attempt: 2, maximumAttempts: 8 }).message).toMatch(/will be retried/);
    const last = toActivityFailure(err, { attempt: 8, maximumAttempts: 8 }).message;
    expect(last).toMatch(/^\[provider-server\] /);
    expect(last).toContain('It failed after 8 attempts.');
    expect(last).not.toMatch(/retried/);
  });

  it('refuses tool arguments over the per-answer limit as a call the model reads, keeping the others', async () => {
    server.respond(() => ({
      json: chatCompletion(
        {
          content: null,
          tool_calls: [
            {
              id: 'big',
              type: 'function',
              function: {
                name: 'write_file',
                arguments: JSON.stringify({ path: 'a', content: 'y'.repeat(5 * 1024 * 1024) }),
              },
            },
            { id: 'small', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } },
          ],
        },
        'tool_calls',
      ),
    }));
    const res = await openai().infer(sampleRequest('openai:gpt-4o'));
    expect(res.toolCalls.map((c) => c.id)).toEqual(['small']);
    expect(res.invalidToolCalls).toHaveLength(1);
    expect(res.invalidToolCalls[0]!.error).toMatch(/^\[tool-arguments-too-large\] /);
    expect(JSON.stringify(res).length).toBeLessThan(10_000);
  });

  it('passes a cancellation through untouched, so Temporal sees the activity was cancelled', async () => {
    server.respond(() => ({ hang: true }));
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 50);
    const err = await openai()
      .infer(sampleRequest('openai:gpt-4o'), { signal: ctrl.signal })
      .catch((e: unknown) => e);
    expect(isProviderError(err)).toBe(false);
    expect((err as Error).constructor.name).toBe('APIUserAbortError');
  });

  it('makes exactly one HTTP attempt per call (the SDK does not retry)', async () => {
    const before = server.requests.length;
    await failureOf(openaiError(500, 'boom'));
    expect(server.requests.length).toBe(before + 1);
  });

  it('never puts the API key in an error message, a failure or the request body', async () => {
    const echo = (r: { headers: Record<string, unknown> }) =>
      openaiError(401, `Incorrect API key provided: ${String(r.headers.authorization)} (key ${KEY})`);
    server.respond((r) => echo(r));
    let caught: unknown;
    try {
      await openai().infer(sampleRequest('openai:gpt-4o'));
    } catch (err) {
      caught = err;
    }
    expect(isProviderError(caught)).toBe(true);
    const err = caught as ProviderError;
    expect(err.kind).toBe('auth');
    expect(err.message).toContain('OPENAI_API_KEY');
    expect(err.message).not.toContain(KEY);
    expect(err.message).not.toContain(KEY.slice(3));
    const failure = toActivityFailure(err);
    expect(failure.message).not.toContain(KEY);
    expect(JSON.stringify(failure.details)).not.toContain(KEY);
    expect(err.stack ?? '').not.toContain(KEY);
    expect(JSON.stringify(err)).not.toContain(KEY);
    expect(server.requests.at(-1)!.raw).not.toContain(KEY);
  });
});

describe('getProvider', () => {
  it('asks for the key when OPENAI_API_KEY is missing, without calling the server', () => {
    expect(() => getProvider('openai:gpt-4o', {})).toThrow(/set OPENAI_API_KEY/);
    try {
      getProvider('openrouter:meta/llama', {});
    } catch (err) {
      expect(isProviderError(err) && err.kind).toBe('auth');
    }
  });

  it('rejects an unknown prefix with a coded error', () => {
    expect(() => getProvider('gemini:pro', {})).toThrow(expect.objectContaining({ code: 'unknown-provider' }));
  });

  it('rejects a malformed timeout setting', () => {
    expect(() => getProvider('ollama:llama3.1', { LEVIATH_PROVIDER_TIMEOUT_MS: 'soon' })).toThrow(
      expect.objectContaining({ code: 'provider-timeout-invalid' }),
    );
  });

  it('serves every OpenAI-compatible prefix', () => {
    const env = { OPENAI_API_KEY: KEY, OPENROUTER_API_KEY: KEY };
    for (const p of ['openai', 'openrouter', 'ollama', 'vllm', 'lmstudio']) {
      expect(getProvider(`${p}:m`, env).name).toBe(p);
    }
  });
});

describe('OpenAI-compatible streaming (docs/reference/events.md#the-token-channel)', () => {
  async function streamed(reply: Reply, extraEnv: Record<string, string> = {}) {
    server.respond(() => reply);
    const seen: string[] = [];
    const res = await openai(extraEnv).infer(sampleRequest('openai:gpt-4o'), { onText: (t) => seen.push(t) });
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

  it('asks for a stream with its usage when the caller reads the text, and assembles the same reply', async () => {
    const completion = chatCompletion(
      {
        content: 'Reading both files first.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } },
          { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/b.ts"}' } },
        ],
      },
      'tool_calls',
      { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320, prompt_tokens_details: { cached_tokens: 256 } },
    );
    server.respond(() => ({ json: completion }));
    const whole = await openai().infer(sampleRequest('openai:gpt-4o'));
    const { res, seen, body } = await streamed({ json: completion });
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(res).toEqual(whole);
    expect(res.toolCalls.map((c) => c.arguments)).toEqual([{ path: 'src/a.ts' }, { path: 'src/b.ts' }]);
    expect(res.usage.cacheReadTokens).toBe(256);
    // The text came in its two halves, each time the text so far.
    expect(seen).toEqual(['Reading both ', 'Reading both files first.']);
  });

  it('retries a stream cut mid-way as a connection error', async () => {
    const head = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
    const err = await streamFailure({
      sse: [{ ...head, choices: [{ index: 0, delta: { content: 'Half a rep' }, finish_reason: null }] }],
      cut: true,
    });
    expect(err.kind).toBe('connection');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('the stream ended before the reply was complete');
    expect(toActivityFailure(err)).toMatchObject({ nonRetryable: false, type: 'ProviderConnection' });
  });

  it('retries a stream that ends without its finish as a connection error', async () => {
    const head = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
    const err = await streamFailure({
      sse: [{ ...head, choices: [{ index: 0, delta: { content: 'No end' }, finish_reason: null }] }],
    });
    expect(err.kind).toBe('connection');
    expect(err.retryable).toBe(true);
  });

  it('maps a stream that stalls mid-way to a retryable timeout', async () => {
    const err = await streamFailure({ stall: true }, { LEVIATH_PROVIDER_TIMEOUT_MS: '300' });
    expect(err.kind).toBe('timeout');
    expect(err.retryable).toBe(true);
  });

  it('keeps the error a server answers a streamed request with', async () => {
    const err = await streamFailure(openaiError(500, 'The server had an error'));
    expect(err.kind).toBe('server');
  });
});

describe('OpenAI-compatible servers that answer a streamed request whole', () => {
  it('read the whole answer as the reply and hand its text over once', async () => {
    // The wire server streams only a request it can tell is streamed; this one answers JSON regardless.
    server.respond(() => ({ body: JSON.stringify(chatCompletion({ content: 'Whole, not streamed.' })) }));
    const seen: string[] = [];
    const res = await openai().infer(sampleRequest('openai:gpt-4o'), { onText: (t) => seen.push(t) });
    expect(server.requests.at(-1)!.body.stream).toBe(true);
    expect(res.text).toBe('Whole, not streamed.');
    expect(seen).toEqual(['Whole, not streamed.']);
  });

  it('still tell an HTML page and an empty answer apart, as bad responses', async () => {
    const seen: string[] = [];
    server.respond(() => ({ headers: { 'content-type': 'text/html' }, body: '<html>502 Bad Gateway</html>' }));
    const html = await openai()
      .infer(sampleRequest('openai:gpt-4o'), { onText: (t) => seen.push(t) })
      .catch((e: unknown) => e as ProviderError);
    expect((html as ProviderError).code).toBe('provider-bad-response');
    server.respond(() => ({ json: { id: 'x', choices: [] } }));
    const empty = await openai()
      .infer(sampleRequest('openai:gpt-4o'), { onText: (t) => seen.push(t) })
      .catch((e: unknown) => e as ProviderError);
    expect((empty as ProviderError).retryable).toBe(true);
    expect(seen).toEqual([]);
  });
});

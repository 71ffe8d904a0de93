/**
 * The contract of a script provider (docs/reference/script-providers.md#the-script-contract):
 * the request map its `inference` receives, its reply read back, and what it
 * threw read as a provider failure.
 */
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/providers/classify.js';
import type { InferenceRequest } from '../../src/providers/index.js';
import {
  metaInteger,
  readProviderMeta,
  responseOf,
  scriptRequest,
  stopReasonOf,
  thrownFailure,
  usageOf,
} from '../../src/providers/script-contract.js';
import { parseSse } from '../../src/providers/script-provider-host.js';

const REQUEST: InferenceRequest = {
  model: 'compat:compat-small',
  system: [{ text: 'You are terse.', cache: true }, { text: 'Task: count.' }],
  messages: [
    { role: 'user', content: 'Count the files.' },
    {
      role: 'assistant',
      content: 'Listing.',
      toolCalls: [
        { id: 'c1', name: 'list_dir', arguments: { path: '.' } },
        { id: 'c2', name: 'read_file', arguments: { path: 'a' } },
      ],
    },
    { role: 'tool', toolCallId: 'c1', toolName: 'list_dir', content: 'a\nb' },
    { role: 'tool', toolCallId: 'c2', toolName: 'read_file', content: 'no such file', isError: true, cache: true },
    { role: 'assistant', content: 'Two files.' },
  ],
  tools: [{ name: 'list_dir', description: 'Lists a folder', parameters: { type: 'object' } }],
  maxTokens: 1024,
  parameters: { temperature: 0.2 },
  meta: { runId: 'r', stage: 's', turn: 3, purpose: 'turn', attempt: 1 },
};

const CTX: CallContext = {
  provider: 'compat',
  model: 'compat-small',
  baseURL: 'http://x',
  timeoutMs: 1000,
  secrets: [],
};

describe('the request a script receives', () => {
  it("is the original's shape: system blocks, string or block messages, tools, the model without its provider", () => {
    expect(scriptRequest(REQUEST, { tag: 'blue' }, 120_000)).toEqual({
      system: [
        { text: 'You are terse.', cache_hint: 'Always', region: '', volatility: 'rewritten' },
        { text: 'Task: count.', cache_hint: 'Never', region: '', volatility: 'rewritten' },
      ],
      messages: [
        { role: 'user', content: 'Count the files.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Listing.' },
            { type: 'tool_use', id: 'c1', name: 'list_dir', input: { path: '.' } },
            { type: 'tool_use', id: 'c2', name: 'read_file', input: { path: 'a' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c1', content: 'a\nb', is_error: false },
            { type: 'tool_result', tool_use_id: 'c2', content: 'no such file', is_error: true },
          ],
          cache_breakpoint: true,
        },
        { role: 'assistant', content: 'Two files.' },
      ],
      tools: [{ name: 'list_dir', description: 'Lists a folder', parameters: { type: 'object' } }],
      model: 'compat-small',
      max_tokens: 1024,
      temperature: 0.2,
      request_timeout_secs: 120,
      extra: { tag: 'blue' },
    });
  });

  it('carries no temperature when the stage sets none', () => {
    const { parameters: _, ...plain } = REQUEST;
    expect(scriptRequest(plain, {}, 1000)).not.toHaveProperty('temperature');
  });
});

describe('the reply a script returns', () => {
  it('reads every spelling of finish_reason, and anything else as a complete reply', () => {
    const table = {
      Complete: 'end',
      Stop: 'end',
      stop: 'end',
      stop_sequence: 'end',
      ToolCall: 'tool_calls',
      tool_calls: 'tool_calls',
      tool_use: 'tool_calls',
      TokenLimit: 'max_tokens',
      length: 'max_tokens',
      max_tokens: 'max_tokens',
      whatever: 'end',
    };
    for (const [spelling, reason] of Object.entries(table)) expect(stopReasonOf(spelling)).toBe(reason);
    expect(stopReasonOf(undefined)).toBe('end');
  });

  it('normalises tokens_used: missing or bad counts are 0, cache counts never exceed the prompt', () => {
    expect(usageOf({ prompt_tokens: 100, completion_tokens: 7, cached_tokens: 40, cache_write_tokens: 500 })).toEqual({
      usage: { promptTokens: 100, completionTokens: 7, cacheReadTokens: 40, cacheWriteTokens: 100 },
      reported: 100,
    });
    expect(usageOf({ total_tokens: 12, completion_tokens: -3, prompt_tokens: 1.5 })).toEqual({
      usage: { promptTokens: 0, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(usageOf(undefined).usage.promptTokens).toBe(0);
  });

  it('reads tool calls whose arguments are a map or JSON text, numbering those without an id', () => {
    const r = responseOf(
      {
        content: 'On it.',
        tool_calls: [
          { id: 'a', name: 'read_file', arguments: { path: 'x' } },
          { name: 'list_dir', arguments: '{"path": "."}' },
          { id: 'bad', name: 'grep', arguments: '[1,' },
        ],
        tokens_used: { prompt_tokens: 9 },
        finish_reason: 'tool_calls',
      },
      5,
    );
    expect(r?.text).toBe('On it.');
    expect(r?.stopReason).toBe('tool_calls');
    expect(r?.reportedPromptTokens).toBe(9);
    expect(r?.toolCalls).toEqual([
      { id: 'a', name: 'read_file', arguments: { path: 'x' } },
      { id: 'script_call_5_1', name: 'list_dir', arguments: { path: '.' } },
    ]);
    expect(r?.invalidToolCalls.map((c) => c.id)).toEqual(['bad']);
  });

  it('defaults what is missing, and is nothing for a value that is no map', () => {
    expect(responseOf({}, 0)).toMatchObject({ text: '', toolCalls: [], stopReason: 'end' });
    expect(responseOf('hello', 0)).toBeUndefined();
    expect(responseOf(undefined, 0)).toBeUndefined();
  });
});

describe('what a script throws', () => {
  const classed = (thrown: unknown) => {
    const e = thrownFailure(thrown, 'Runtime error (line 3, position 5) in compat.rhai', CTX);
    return { code: e.code, retryable: e.retryable, retryAfterMs: e.retryAfterMs, message: e.message };
  };

  it('names the class with kind, which wins over transient', () => {
    expect(classed({ kind: 'rate_limited', message: '429', retry_after: 7, transient: false })).toMatchObject({
      code: 'provider-rate-limit',
      retryable: true,
      retryAfterMs: 7000,
    });
    expect(classed({ kind: 'transport', message: 'reset' })).toMatchObject({
      code: 'provider-connection',
      retryable: true,
    });
    expect(classed({ kind: 'transport', message: 'slow', timed_out: true })).toMatchObject({
      code: 'provider-timeout',
    });
    expect(classed({ kind: 'server', message: 'down' })).toMatchObject({ code: 'provider-server', retryable: true });
    expect(classed({ kind: 'invalid_response', message: '<html>' })).toMatchObject({
      code: 'provider-bad-response',
    });
  });

  it('classes an api error by its status, or the status its message names, else as a rejected request', () => {
    expect(classed({ kind: 'api', status: 401, message: 'bad key' })).toMatchObject({
      code: 'provider-auth',
      retryable: false,
    });
    expect(classed({ kind: 'api', message: 'HTTP 503: overloaded', transient: false })).toMatchObject({
      code: 'provider-server',
      retryable: true,
    });
    expect(classed({ kind: 'api', message: 'model unknown' })).toMatchObject({
      code: 'provider-bad-request',
      retryable: false,
    });
  });

  it('retries transient: true, and fails anything else for good with a sentence saying what to do', () => {
    expect(classed({ message: 'server 503', transient: true })).toMatchObject({
      code: 'provider-server',
      retryable: true,
    });
    const permanent = classed({ message: 'GROQ_API_KEY not set', transient: false });
    expect(permanent).toMatchObject({ code: 'provider-script-failed', retryable: false });
    expect(permanent.message).toContain('GROQ_API_KEY not set');
    expect(permanent.message).toContain('[model_providers.compat]');
    expect(classed('plain text')).toMatchObject({ code: 'provider-script-failed', retryable: false });
    expect(classed(42).message).toContain('Runtime error (line 3, position 5)');
  });
});

describe('helpers', () => {
  it("reads the script's leading // @key value lines", () => {
    const meta = readProviderMeta(
      '// @provider groq\n//   @max_context_tokens 131_072\n// plain comment\n\nfn x() {}\n// @late ignored',
    );
    expect(meta).toEqual({ provider: 'groq', max_context_tokens: '131_072' });
    expect(metaInteger(meta, 'max_context_tokens')).toBe(131072);
    expect(metaInteger(meta, 'provider')).toBeUndefined();
  });

  it('parse_sse gives the data payload, parsed when it is JSON, and () for [DONE]', () => {
    expect(parseSse('event: x\ndata: {"a": 1}\n\n')).toEqual({ a: 1 });
    expect(parseSse('data: plain')).toBe('plain');
    expect(parseSse('data: [DONE]')).toBeUndefined();
    expect(parseSse(': keep-alive')).toBeUndefined();
  });
});

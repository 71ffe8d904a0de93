/**
 * The Gemini adapter over real HTTP: `@google/genai` talks to a local server
 * that plays the Gemini API (docs/providers.md#google-gemini).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { SKIP_SIGNATURE } from '../../src/providers/google.js';
import { getProvider, isProviderError, type ProviderError } from '../../src/providers/index.js';
import { providerConfigured } from '../../src/runtime/node/model-choice.js';
import { sampleRequest } from './fixtures.js';
import { type Reply, startWireServer, type WireServer } from './wire-server.js';

const KEY = 'AIza-test-7c1e9b3a5d2f8e4c6a0b';
const MODEL = 'google:gemini-3.5-flash';

function generated(parts: unknown[], finishReason = 'STOP', usage: Record<string, number> = {}): Reply {
  return {
    json: {
      candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
      usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 7, totalTokenCount: 127, ...usage },
      modelVersion: 'gemini-3.5-flash',
    },
  };
}

let server: WireServer;

beforeAll(async () => {
  server = await startWireServer(() => generated([{ text: 'ok' }]));
});
afterAll(() => server.close());

function google(extraEnv: Record<string, string> = {}) {
  return getProvider(MODEL, { GOOGLE_API_KEY: KEY, GOOGLE_BASE_URL: server.url, ...extraEnv });
}

async function failureOf(reply: Reply, extraEnv: Record<string, string> = {}): Promise<ProviderError> {
  server.respond(() => reply);
  try {
    await google(extraEnv).infer(sampleRequest(MODEL));
  } catch (err) {
    if (isProviderError(err)) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('Gemini request', () => {
  it('sends one system instruction, alternating contents, function calls and their responses, tools', async () => {
    server.respond(() => generated([{ text: 'ok' }]));
    await google().infer(sampleRequest(MODEL, { temperature: 0.3 }));
    const req = server.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.url).toMatch(/^\/v1beta\/models\/gemini-3\.5-flash:generateContent/);
    expect(req.headers['x-goog-api-key']).toBe(KEY);
    expect(req.raw).not.toContain(KEY);
    const body = req.body;
    expect(body.systemInstruction.parts).toEqual([
      {
        text: '## pinned\nYou are a careful engineer.\n\n## stage_instructions\nPlan the fix first.\n\n## scratch\nnothing yet',
      },
    ]);
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Fix the failing test in a.ts' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look.' },
          {
            functionCall: { id: 'call_1', name: 'read_file', args: { path: 'a.ts' } },
            thoughtSignature: SKIP_SIGNATURE,
          },
          {
            functionCall: { id: 'call_2', name: 'grep', args: { pattern: 'expect' } },
            thoughtSignature: SKIP_SIGNATURE,
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_1', name: 'read_file', response: { output: 'export const a = 1;' } } },
          { functionResponse: { id: 'call_2', name: 'grep', response: { error: '[no-match] nothing found' } } },
          { text: 'Go on.' },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'read_file',
            description: 'Read a file from the workdir.',
            parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          },
          {
            name: 'grep',
            description: 'Search files for a pattern.',
            parametersJsonSchema: {
              type: 'object',
              properties: { pattern: { type: 'string' } },
              required: ['pattern'],
            },
          },
        ],
      },
    ]);
    expect(body.generationConfig).toEqual({ maxOutputTokens: 1024, temperature: 0.3 });
  });
});

describe('Gemini response', () => {
  it('reads text, usage and the end of the turn; thoughts are not the answer', async () => {
    server.respond(() =>
      generated([{ text: 'thinking...', thought: true }, { text: 'Done: ' }, { text: 'fixed.' }], 'STOP', {
        cachedContentTokenCount: 100,
        thoughtsTokenCount: 5,
      }),
    );
    const res = await google().infer(sampleRequest(MODEL));
    expect(res.text).toBe('Done: fixed.');
    expect(res.stopReason).toBe('end');
    expect(res.usage).toEqual({ promptTokens: 120, completionTokens: 12, cacheReadTokens: 100, cacheWriteTokens: 0 });
    expect(res.reportedPromptTokens).toBe(120);
  });

  it('reads function calls, naming one without an id, and stops for tools', async () => {
    server.respond(() =>
      generated([
        { functionCall: { id: 'fc-9', name: 'read_file', args: { path: 'b.ts' } } },
        { functionCall: { name: 'grep', args: { pattern: 'x' } } },
      ]),
    );
    const res = await google().infer(sampleRequest(MODEL));
    expect(res.stopReason).toBe('tool_calls');
    expect(res.toolCalls).toEqual([
      { id: 'fc-9', name: 'read_file', arguments: { path: 'b.ts' } },
      { id: 'call_1', name: 'grep', arguments: { pattern: 'x' } },
    ]);
  });

  it('says when the reply ran out of tokens', async () => {
    server.respond(() => generated([{ text: 'half a sent' }], 'MAX_TOKENS'));
    expect((await google().infer(sampleRequest(MODEL))).stopReason).toBe('max_tokens');
  });
});

describe('Gemini failures', () => {
  const geminiError = (status: number, message: string, code: string): Reply => ({
    status,
    json: { error: { code: status, message, status: code } },
  });

  it('a refused key is provider-auth, naming GOOGLE_API_KEY, without the key', async () => {
    const err = await failureOf(geminiError(401, 'API key not valid. Please pass a valid API key.', 'UNAUTHENTICATED'));
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/GOOGLE_API_KEY/);
    expect(err.message).not.toContain(KEY);
  });

  it('a spent quota is a rate limit; a server error is retryable', async () => {
    expect((await failureOf(geminiError(429, 'Resource has been exhausted', 'RESOURCE_EXHAUSTED'))).kind).toBe(
      'rate-limit',
    );
    expect((await failureOf(geminiError(503, 'The model is overloaded.', 'UNAVAILABLE'))).kind).toBe('server');
  });

  it('an over-long prompt is context-length, with the server message', async () => {
    const err = await failureOf(
      geminiError(
        400,
        'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
        'INVALID_ARGUMENT',
      ),
    );
    expect(err.kind).toBe('context-length');
  });

  it('an answer that is not Gemini JSON is bad-response; no candidates is an empty answer', async () => {
    expect((await failureOf({ json: { something: 'else' } })).kind).toBe('bad-response');
    expect((await failureOf({ json: { candidates: [] } })).kind).toBe('empty-answer');
  });

  it('a reset socket is a connection failure', async () => {
    expect((await failureOf({ reset: true })).kind).toBe('connection');
  });

  it('a missing key fails at once, naming the variable', () => {
    expect(() => getProvider(MODEL, {})).toThrow(/GOOGLE_API_KEY/);
  });
});

describe("the original's chains name google models", () => {
  it('google is a configured provider when GOOGLE_API_KEY is set, and its models have windows', () => {
    expect(providerConfigured(MODEL, { GOOGLE_API_KEY: KEY })).toBe(true);
    expect(providerConfigured(MODEL, {})).toBe(false);
    const r = loadBlueprint('test/fixtures/leviath-rs/agents/coder');
    expect(r.diagnostics.filter((d) => d.code === 'unknown-model-window' && d.message.includes('google:'))).toEqual([]);
  });
});

describe('Gemini streaming (docs/reference/events.md#the-token-channel)', () => {
  async function streamed(reply: Reply, extraEnv: Record<string, string> = {}) {
    server.respond(() => reply);
    const seen: string[] = [];
    const res = await google(extraEnv).infer(sampleRequest(MODEL), { onText: (t) => seen.push(t) });
    return { res, seen, req: server.requests.at(-1)! };
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

  const piece = (text: string) => ({ candidates: [{ index: 0, content: { role: 'model', parts: [{ text }] } }] });

  it('asks streamGenerateContent with alt=sse when the caller reads the text, and assembles the same reply', async () => {
    const whole = generated([{ text: 'Looking into it now.' }], 'STOP', { cachedContentTokenCount: 64 });
    server.respond(() => whole);
    const plain = await google().infer(sampleRequest(MODEL));
    const { res, seen, req } = await streamed(whole);
    expect(req.url).toMatch(/^\/v1beta\/models\/gemini-3\.5-flash:streamGenerateContent\?alt=sse/);
    expect(res).toEqual(plain);
    expect(res.usage.cacheReadTokens).toBe(64);
    expect(seen).toEqual(['Looking in', 'Looking into it now.']);
  });

  it('assembles text around thoughts and function calls, the usage and the stop for tools', async () => {
    const whole = generated(
      [
        { text: 'thinking...', thought: true },
        { text: 'Reading ' },
        { functionCall: { id: 'fc-9', name: 'read_file', args: { path: 'b.ts' } } },
        { functionCall: { name: 'grep', args: { pattern: 'x' } } },
        { text: 'both.' },
      ],
      'STOP',
      { thoughtsTokenCount: 5 },
    );
    server.respond(() => whole);
    const plain = await google().infer(sampleRequest(MODEL));
    const { res, seen } = await streamed(whole);
    expect(res).toEqual(plain);
    expect(res.stopReason).toBe('tool_calls');
    expect(res.toolCalls).toEqual([
      { id: 'fc-9', name: 'read_file', arguments: { path: 'b.ts' } },
      { id: 'call_1', name: 'grep', arguments: { pattern: 'x' } },
    ]);
    expect(res.usage).toEqual({ promptTokens: 120, completionTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 });
    // Thoughts never reach the text so far.
    expect(seen).toEqual(['Read', 'Reading ', 'Reading bot', 'Reading both.']);
  });

  it('retries a stream cut mid-way, or one that ends without its finish reason, as a connection error', async () => {
    const cut = await streamFailure({ sse: [piece('Half a rep')], cut: true });
    expect(cut.kind).toBe('connection');
    expect(cut.retryable).toBe(true);
    expect(cut.message).toContain('the stream ended before the reply was complete');
    const unfinished = await streamFailure({ sse: [piece('No end')], done: false });
    expect(unfinished.kind).toBe('connection');
    expect(unfinished.message).toContain('the stream ended before the reply was complete');
  });

  it('maps a stream that stalls mid-way to a retryable timeout', async () => {
    const err = await streamFailure(
      { sse: [piece('Then nothing')], hold: true },
      { LEVIATH_PROVIDER_TIMEOUT_MS: '300' },
    );
    expect(err.kind).toBe('timeout');
    expect(err.retryable).toBe(true);
  });

  it('classifies an error the stream carries by its code, and a blocked prompt as a bad request', async () => {
    const overloaded = await streamFailure({
      sse: [piece('Wor'), { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }],
      done: false,
    });
    expect(overloaded.kind).toBe('server');
    expect(overloaded.message).toContain('The model is overloaded.');
    const blocked = await streamFailure({
      sse: [{ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5 } }],
      done: false,
    });
    expect(blocked.kind).toBe('bad-request');
    expect(blocked.message).toContain('the prompt was blocked (SAFETY)');
  });

  it('reads an answer that comes whole as the reply and hands its text over once', async () => {
    const whole = generated([{ text: 'Whole, not streamed.' }]) as { json: unknown };
    const { res, seen, req } = await streamed({ body: JSON.stringify(whole.json) });
    expect(req.url).toContain(':streamGenerateContent');
    expect(res.text).toBe('Whole, not streamed.');
    expect(seen).toEqual(['Whole, not streamed.']);
  });
});

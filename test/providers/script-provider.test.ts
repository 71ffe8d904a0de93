/**
 * A script provider against a local OpenAI-compatible server
 * (docs/reference/script-providers.md): what the script sends, how its reply
 * comes back, and how the server's failures and the script's own are classed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getProvider, type InferenceRequest, isProviderError, type ProviderError } from '../../src/providers/index.js';
import { readProviderMeta } from '../../src/providers/script-contract.js';
import type { ProviderScriptDef } from '../../src/shapes/frozen-blueprint.js';
import { chatCompletion, startWireServer, type WireServer } from './wire-server.js';

const COMPAT = join(import.meta.dirname, 'fixtures', 'compat.rhai');

function def(source: string, name = 'compat'): ProviderScriptDef {
  return { name, path: `/config/providers/${name}.rhai`, source, meta: readProviderMeta(source) };
}

const REQUEST: InferenceRequest = {
  model: 'compat:compat-small',
  system: [{ text: 'Be brief.' }],
  messages: [
    { role: 'user', content: 'List the folder.' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'list_dir', arguments: { path: '.' } }] },
    { role: 'tool', toolCallId: 'c1', toolName: 'list_dir', content: 'a.txt' },
  ],
  tools: [{ name: 'list_dir', description: 'Lists a folder', parameters: { type: 'object' } }],
  maxTokens: 512,
  parameters: { temperature: 0.3 },
  meta: { runId: 'r', stage: 's', turn: 0, purpose: 'turn', attempt: 1 },
};

async function failureOf(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isProviderError(err)) throw new Error(`expected a provider error, got ${String(err)}`);
  return err;
}

describe('a script provider', () => {
  let server: WireServer;
  const source = readFileSync(COMPAT, 'utf8');
  const provider = (settings: Record<string, unknown> = {}, text = source, env: NodeJS.ProcessEnv = {}) =>
    getProvider('compat:compat-small', env, {
      defs: [def(text)],
      settings: { compat: { base_url: `${server.url}/v1`, api_key: 'sk-script-3f9a', ...settings } },
    });

  beforeAll(async () => {
    server = await startWireServer(() => ({ json: chatCompletion({ content: 'ok' }) }));
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.respond(() => ({ json: chatCompletion({ content: 'ok' }) }));
  });

  it('sends what its script builds from the request, and answers with its mapped reply', async () => {
    server.respond(() => ({
      json: chatCompletion(
        {
          content: 'Reading.',
          tool_calls: [{ id: 't9', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
        },
        'tool_calls',
        { prompt_tokens: 80, completion_tokens: 5, total_tokens: 85 },
      ),
    }));
    const r = await provider({ tag: 'blue' }).infer(REQUEST);
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0];
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-script-3f9a');
    expect(sent?.body).toEqual({
      model: 'compat-small',
      max_tokens: 512,
      temperature: 0.3,
      tag: 'blue',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'List the folder.' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list_dir', arguments: '{"path":"."}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'list_dir', description: 'Lists a folder', parameters: { type: 'object' } },
        },
      ],
    });
    expect(r).toEqual({
      text: 'Reading.',
      toolCalls: [{ id: 't9', name: 'read_file', arguments: { path: 'a.txt' } }],
      invalidToolCalls: [],
      stopReason: 'tool_calls',
      usage: { promptTokens: 80, completionTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
      reportedPromptTokens: 80,
    });
  });

  it('reads the environment with env_var in initialize', async () => {
    const p = getProvider(
      'compat:compat-small',
      { COMPAT_BASE_URL: `${server.url}/v1` },
      { defs: [def(source)], settings: {} },
    );
    expect((await p.infer(REQUEST)).text).toBe('ok');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer none');
  });

  it('classes a 429 as a retried rate limit with its Retry-After, and a 503 as a retried server failure', async () => {
    server.respond(() => ({ status: 429, headers: { 'retry-after': '3' }, json: { error: 'slow down' } }));
    const limited = await failureOf(provider().infer(REQUEST));
    expect(limited).toMatchObject({ code: 'provider-rate-limit', retryable: true, retryAfterMs: 3000, status: 429 });
    server.respond(() => ({ status: 503, json: { error: 'overloaded' } }));
    const down = await failureOf(provider().infer(REQUEST));
    expect(down).toMatchObject({ code: 'provider-server', retryable: true, status: 503 });
    expect(down.message).toContain('overloaded');
    server.respond(() => ({ status: 401, json: { error: 'bad key sk-script-3f9a' } }));
    const refused = await failureOf(provider().infer(REQUEST));
    expect(refused).toMatchObject({ code: 'provider-auth', retryable: false });
    expect(refused.message).not.toContain('sk-script-3f9a');
  });

  it('lets the script catch a failed request as the error map', async () => {
    server.respond(() => ({ status: 500, json: { error: 'boom' } }));
    const catching = `fn initialize(config) { #{ base: config.base_url } }
fn inference(state, request) {
    try { http_post(state.base + "/chat/completions", "{}") } catch (e) {
        return #{ content: \`\${e.kind} \${e.status}\`, finish_reason: "Stop" };
    }
}`;
    expect((await provider({}, catching).infer(REQUEST)).text).toBe('api 500');
  });

  it('classes a connection that fails as retried', async () => {
    const e = await failureOf(provider({ base_url: 'http://127.0.0.1:9/v1' }).infer(REQUEST));
    expect(e).toMatchObject({ code: 'provider-connection', retryable: true });
  });

  it('fails for good, saying what to do, when the script throws a permanent error or breaks the contract', async () => {
    const noBase = await failureOf(provider({ base_url: undefined }, source, {}).infer(REQUEST));
    expect(noBase).toMatchObject({ code: 'provider-script-failed', retryable: false });
    expect(noBase.message).toContain('no base_url');

    const online = `fn initialize(config) { http_get("http://example.com") } fn inference(s, r) { #{} }`;
    const early = await failureOf(provider({}, online).infer(REQUEST));
    expect(early.message).toContain('http_get is not available in initialize');

    const notMap = `fn initialize(config) { #{} } fn inference(s, r) { "text" }`;
    expect((await failureOf(provider({}, notMap).infer(REQUEST))).message).toContain('not a map');

    const leaks = `fn initialize(config) { #{ k: config.api_key } } fn inference(s, r) { throw #{ message: "refused " + s.k }; }`;
    const redacted = await failureOf(provider({}, leaks).infer(REQUEST));
    expect(redacted.message).toContain('refused [redacted]');
    expect(redacted.message).not.toContain('sk-script-3f9a');

    const loops = `fn initialize(config) { #{} } fn inference(s, r) { loop { } }`;
    const stopped = await failureOf(provider({}, loops).infer(REQUEST));
    expect(stopped).toMatchObject({ code: 'provider-script-failed' });
    expect(stopped.message).toContain('limit');
  });

  it('retries a thrown transient error and stops at the request cap', async () => {
    const transient = `fn initialize(config) { #{} } fn inference(s, r) { throw #{ message: "warming up", transient: true }; }`;
    expect(await failureOf(provider({}, transient).infer(REQUEST))).toMatchObject({
      code: 'provider-server',
      retryable: true,
    });
    const many = `fn initialize(config) { #{ b: config.base_url } } fn inference(s, r) { for i in 0..20 { http_get(s.b + "/models"); } #{} }`;
    server.respond(() => ({ json: { data: [] } }));
    expect((await failureOf(provider({}, many).infer(REQUEST))).message).toContain('more than 16 requests');
    expect(server.requests).toHaveLength(16);
  });

  it('is an unknown provider when the run carries no script of that name', () => {
    expect(() => getProvider('groq:llama', {}, { defs: [def(source)], settings: {} })).toThrow(
      expect.objectContaining({ code: 'unknown-provider' }),
    );
  });
});

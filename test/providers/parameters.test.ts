/**
 * A stage's model parameters on the wire (docs/providers.md#model-parameters):
 * each provider's request body, as a local server receives it, carries them
 * where the provider table says; one a provider has no setting for is refused
 * with a code; and the page's table is the provider table.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import { getProvider } from '../../src/providers/index.js';
import { MODEL_PARAMETERS, type ModelParameters } from '../../src/shapes/model-parameters.js';
import { PROVIDER_PREFIXES, PROVIDERS } from '../../src/shapes/providers.js';
import { sampleRequest } from './fixtures.js';
import {
  anthropicMessage,
  chatCompletion,
  type RecordedRequest,
  startWireServer,
  type WireServer,
} from './wire-server.js';

let server: WireServer;

beforeAll(async () => {
  server = await startWireServer((req) => {
    if (req.url.startsWith('/v1/messages')) return { json: anthropicMessage('ok', 'claude-opus-5') };
    if (req.url.includes(':generateContent'))
      return {
        json: {
          candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
        },
      };
    return { json: chatCompletion({ content: 'ok' }) };
  });
});
afterAll(() => server.close());

const ENV = (url: string): NodeJS.ProcessEnv => ({
  OPENAI_API_KEY: 'sk-test-params',
  OPENAI_BASE_URL: `${url}/v1`,
  OPENROUTER_API_KEY: 'sk-or-test-params',
  OPENROUTER_BASE_URL: `${url}/v1`,
  OLLAMA_BASE_URL: `${url}/v1`,
  VLLM_BASE_URL: `${url}/v1`,
  LMSTUDIO_BASE_URL: `${url}/v1`,
  ANTHROPIC_API_KEY: 'sk-ant-test-params',
  ANTHROPIC_BASE_URL: url,
  GOOGLE_API_KEY: 'AIza-test-params',
  GOOGLE_BASE_URL: url,
});

/** The body a provider sent for one request of `ref` with `parameters`. */
async function sent(ref: string, parameters: ModelParameters): Promise<RecordedRequest> {
  await getProvider(ref, ENV(server.url)).infer(sampleRequest(ref, { parameters, maxTokens: 700 }));
  return server.requests.at(-1)!;
}

const SAMPLING: ModelParameters = { temperature: 0.2, top_p: 0.9, stop: ['END'] };

describe('the request body carries the parameters where each provider reads them', () => {
  it('OpenAI: temperature, top_p, stop, reasoning_effort, and the reply limit as max_completion_tokens', async () => {
    const { body } = await sent('openai:gpt-5.6-terra', { ...SAMPLING, reasoning_effort: 'low' });
    expect(body).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      reasoning_effort: 'low',
      max_completion_tokens: 700,
    });
  });

  it('OpenRouter: the effort as reasoning.effort', async () => {
    const { body } = await sent('openrouter:anthropic/claude-opus-5', { ...SAMPLING, reasoning_effort: 'high' });
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9, stop: ['END'], reasoning: { effort: 'high' } });
    expect(body.reasoning_effort).toBeUndefined();
  });

  it('Ollama: think = false as reasoning_effort "none", which its endpoint reads as thinking off', async () => {
    const { body } = await sent('ollama:qwen3', { ...SAMPLING, think: false });
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9, stop: ['END'], reasoning_effort: 'none' });
    expect(body.think).toBeUndefined();
    expect((await sent('ollama:qwen3', { think: true })).body.reasoning_effort).toBe('medium');
  });

  it('Anthropic: stop_sequences and output_config.effort, no temperature', async () => {
    const { body, url } = await sent('anthropic:claude-opus-5', { stop: ['END'], reasoning_effort: 'max' });
    expect(url).toMatch(/^\/v1\/messages/);
    expect(body).toMatchObject({ stop_sequences: ['END'], output_config: { effort: 'max' }, max_tokens: 700 });
    expect(body.temperature).toBeUndefined();
    expect(body.stop).toBeUndefined();
  });

  it('Google: generationConfig temperature, topP, stopSequences and thinkingConfig.thinkingLevel', async () => {
    const { body } = await sent('google:gemini-3.5-flash', { ...SAMPLING, reasoning_effort: 'minimal' });
    expect(body.generationConfig).toMatchObject({
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END'],
      maxOutputTokens: 700,
      thinkingConfig: { thinkingLevel: 'MINIMAL' },
    });
  });

  it('vLLM and LM Studio: the sampling fields at the top level', async () => {
    expect((await sent('vllm:qwen3', SAMPLING)).body).toMatchObject({ temperature: 0.2, top_p: 0.9, stop: ['END'] });
    expect((await sent('lmstudio:qwen3', SAMPLING)).body).toMatchObject({ temperature: 0.2, top_p: 0.9 });
  });

  it('a request without parameters sends none of them', async () => {
    const { body } = await sent('openai:gpt-5.6-terra', {});
    expect(body.temperature).toBeUndefined();
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.stop).toBeUndefined();
  });
});

describe('a parameter the provider has no setting for', () => {
  it('fails the call with model-parameter-unsupported, before anything is sent', async () => {
    const before = server.requests.length;
    const cases: [string, ModelParameters][] = [
      ['anthropic:claude-opus-5', { temperature: 0.2 }],
      ['lmstudio:qwen3', { reasoning_effort: 'low' }],
      ['openai:gpt-5.6-terra', { think: false }],
      ['vllm:qwen3', { reasoning_effort: 'xhigh' }],
    ];
    for (const [ref, parameters] of cases) {
      const err = await sent(ref, parameters).catch((e: unknown) => e);
      expect(isLevError(err) && err.code, ref).toBe('model-parameter-unsupported');
      expect((err as Error).message).toContain(ref.split(':')[0]);
    }
    expect(server.requests.length).toBe(before);
  });
});

/** The page's table, built from the provider table. */
function table(): string {
  const served = PROVIDER_PREFIXES.filter((p) => PROVIDERS[p].wire !== 'scripted');
  const rows = [
    `| Parameter | Takes | ${served.map((p) => `\`${p}\``).join(' | ')} |`,
    `|---|---|${served.map(() => '---').join('|')}|`,
  ];
  for (const [name, { takes }] of Object.entries(MODEL_PARAMETERS)) {
    const cells = served.map((p) => {
      if (name === 'max_tokens') return 'the reply limit';
      const facts = PROVIDERS[p];
      const wire = facts.wire === 'scripted' ? undefined : facts.parameters[name as keyof typeof facts.parameters];
      if (!wire) return 'refused';
      const values = 'values' in wire ? (wire.values as Record<string, string>) : undefined;
      const spelled = values
        ? ` (${Object.entries(values)
            .map(([k, v]) => (k === v ? k : `${k} → ${v}`))
            .join(', ')})`
        : '';
      return `\`${wire.path}\`${spelled}`;
    });
    rows.push(`| \`${name}\` | ${takes} | ${cells.join(' | ')} |`);
  }
  return rows.join('\n');
}

it("docs/providers.md's table of model parameters is the provider table's", () => {
  expect(readFileSync('docs/providers.md', 'utf8')).toContain(table());
});

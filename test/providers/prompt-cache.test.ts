/**
 * Cache markers and keys on the wire: what the engine renders goes through
 * the real adapters to a local server, which records the bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRegions, systemBlockText } from '../../src/context/render.js';
import { getProvider, type InferenceRequest } from '../../src/providers/index.js';
import type { RegionState } from '../../src/shapes/content.js';
import { sampleRequest } from './fixtures.js';
import { anthropicMessage, startWireServer, type WireServer } from './wire-server.js';

const chat = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4.1',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
};
const message = anthropicMessage('ok');

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer((req) => ({ json: req.url.includes('/messages') ? message : chat }));
});
afterAll(() => server.close());

const env = () => ({
  OPENAI_API_KEY: 'sk-test',
  OPENAI_BASE_URL: `${server.url}/v1`,
  OLLAMA_BASE_URL: `${server.url}/v1`,
  ANTHROPIC_API_KEY: 'sk-ant-test',
  ANTHROPIC_BASE_URL: server.url,
});

async function sent(model: string, req: InferenceRequest) {
  const before = server.requests.length;
  await getProvider(model, env()).infer(req);
  return server.requests[before]!.body;
}

describe('OpenAI prompt_cache_key', () => {
  it('is one key per run and stage, and differs for another stage or run', async () => {
    const request = (runId: string, stage: string) => {
      const base = sampleRequest('openai:gpt-4.1');
      return { ...base, meta: { ...base.meta, runId, stage } };
    };
    const a = (await sent('openai:gpt-4.1', request('run-1', 'plan'))).prompt_cache_key;
    const again = (await sent('openai:gpt-4.1', request('run-1', 'plan'))).prompt_cache_key;
    const otherStage = (await sent('openai:gpt-4.1', request('run-1', 'implement'))).prompt_cache_key;
    const otherRun = (await sent('openai:gpt-4.1', request('run-2', 'plan'))).prompt_cache_key;
    expect(a).toMatch(/^lev-[0-9a-f]{32}$/);
    expect(again).toBe(a);
    expect(new Set([a, otherStage, otherRun]).size).toBe(3);
  });

  it('is not sent to other OpenAI-compatible servers, which may refuse unknown fields', async () => {
    const body = await sent('ollama:qwen3', sampleRequest('ollama:qwen3'));
    expect(body).not.toHaveProperty('prompt_cache_key');
  });
});

function region(
  name: string,
  kind: RegionState['kind'],
  texts: string[],
  volatility: 'stable' | 'grows' | 'rewritten',
  placement?: 'system' | 'tail',
) {
  return {
    name,
    kind,
    def: {
      name,
      kind,
      admission: 'evict',
      volatility,
      volatilityDeclared: false,
      summarizable: true,
      required: false,
      describeInPrompt: false,
      ...(placement ? { placement } : {}),
    },
    budget: 10_000,
    entries: texts.map((content, i) => ({
      id: i + 1,
      content,
      tokens: 10,
      kind: kind === 'sliding_window' ? ('user' as const) : ('text' as const),
      created: 0,
      touched: 0,
      at: 0,
    })),
    pending: [],
    nextItemId: 1,
    updates: 0,
    foldFailures: 0,
  } satisfies RegionState;
}

describe('Anthropic cache_control', () => {
  it('marks the end of each volatility class and the last message, four breakpoints in all', async () => {
    const rendered = renderRegions(
      [
        region('task', 'pinned', ['Fix the bug.'], 'stable'),
        region('codebase', 'compacting', ['a.ts', 'b.ts'], 'grows'),
        region('todos', 'checklist', [], 'rewritten'),
        region('scratch', 'temporary', ['note'], 'rewritten'),
        region('notes', 'clearable', ['more'], 'rewritten'),
        region('conversation', 'sliding_window', ['first', 'second'], 'rewritten'),
      ],
      { stage: 'main', iteration: 0, model: 'anthropic:claude-sonnet-4-5', window: { used: 0, max: 200_000 } },
    );
    const base = sampleRequest('anthropic:claude-sonnet-4-5');
    const body = await sent('anthropic:claude-sonnet-4-5', {
      ...base,
      system: rendered.system.map((b) => ({ text: systemBlockText(b), ...(b.cache ? { cache: true } : {}) })),
      messages: rendered.messages,
    });
    const system = body.system as { text: string; cache_control?: unknown }[];
    expect(system.map((b) => [b.text.split('\n')[0], b.cache_control !== undefined])).toEqual([
      ['## task', true],
      ['## codebase', true],
      ['## scratch', false],
      ['## notes', true],
    ]);
    const blocks = (body.messages as { content: { text?: string; cache_control?: unknown }[] }[]).flatMap(
      (m) => m.content,
    );
    expect(blocks.filter((b) => b.cache_control).map((b) => b.text)).toEqual(['second']);
  });
});

describe('the tail on the wire (docs/reference/rendering.md#adapters)', () => {
  /** A turn that ended in two tool results, with todos and scratch placed in the tail. */
  function tailed() {
    const conversation: RegionState = region('conversation', 'sliding_window', ['Fix the bug.'], 'rewritten');
    conversation.entries.push(
      {
        id: 10,
        content: 'Reading both files.',
        tokens: 5,
        kind: 'assistant',
        toolCalls: [
          { id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } },
          { id: 'c2', name: 'read_file', arguments: { path: 'b.ts' } },
        ],
        created: 0,
        touched: 0,
        at: 0,
      },
      ...['c1', 'c2'].map((id, i) => ({
        id: 11 + i,
        content: `file ${id}`,
        tokens: 5,
        kind: 'tool_result' as const,
        toolCallId: id,
        toolName: 'read_file',
        created: 0,
        touched: 0,
        at: 0,
      })),
    );
    const rendered = renderRegions(
      [
        region('task', 'pinned', ['Fix the bug.'], 'stable', 'system'),
        region('codebase', 'compacting', ['a.ts'], 'grows', 'system'),
        region('scratch', 'temporary', ['a note'], 'rewritten', 'tail'),
        conversation,
      ],
      { stage: 'main', iteration: 0, model: 'anthropic:claude-sonnet-4-5', window: { used: 0, max: 200_000 } },
    );
    return {
      ...sampleRequest('anthropic:claude-sonnet-4-5'),
      system: rendered.system.map((b) => ({ text: systemBlockText(b), ...(b.cache ? { cache: true } : {}) })),
      messages: rendered.messages,
    };
  }

  it('Anthropic: a text block after the tool results in the same user message, the breakpoint before it', async () => {
    const body = await sent('anthropic:claude-sonnet-4-5', tailed());
    const messages = body.messages as {
      role: string;
      content: { type: string; text?: string; cache_control?: unknown }[];
    }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const last = messages.at(-1)!.content;
    expect(last.map((b) => [b.type, b.cache_control !== undefined])).toEqual([
      ['tool_result', false],
      ['tool_result', true],
      ['text', false],
    ]);
    expect(last.at(-1)?.text).toBe('## scratch\na note');
    const system = body.system as { cache_control?: unknown }[];
    expect(system.filter((b) => b.cache_control).length + 1).toBeLessThanOrEqual(4);
  });

  it('OpenAI: a user message after the tool messages', async () => {
    const body = await sent('openai:gpt-4.1', { ...tailed(), model: 'openai:gpt-4.1' });
    const messages = body.messages as { role: string; content?: string }[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
    expect(messages.at(-1)?.content).toBe('## scratch\na note');
    expect(messages[0]?.content).not.toContain('## scratch');
  });
});

/**
 * Prompt caching through the real runtime: a run on the OpenAI-compatible
 * provider against a local server that records every request. Each
 * request's conversation extends the previous one's, the system section
 * keeps its order from steady to changing, what codebase and scratch take is
 * written in place after the turn that wrote it (blob-held text filled in),
 * the checklist arrives last in the tail, every request
 * of a stage carries one `prompt_cache_key`, and the cached tokens the
 * server reports reach the run's usage and memo.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEGIN_MESSAGE } from '../../src/context/render.js';
import { runAgent, scopedEnv, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

interface Body {
  prompt_cache_key?: string;
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

const SCRIPT = [
  { content: 'Reading a.ts.', tool_calls: [call('c1', 'read_file', { path: 'a.ts' })] },
  { content: 'Planning.', tool_calls: [call('c2', 'todo_add', { region: 'todos', item: 'fix a' })] },
  { content: 'Noting.', tool_calls: [call('c3', 'context_append', { region: 'scratch', content: 'a is small' })] },
  { content: 'Searching.', tool_calls: [call('c4', 'grep', { pattern: 'needle', path: 'big.txt' })] },
  { content: 'Reading b.ts.', tool_calls: [call('c5', 'read_file', { path: 'b.ts' })] },
  { content: 'Planning more.', tool_calls: [call('c6', 'todo_add', { region: 'todos', item: 'fix b' })] },
  { content: 'The plan is ready.' },
];

/** Enough matching lines that the search result (over 2 KB) is stored as a blob. */
const NEEDLES = 80;

/** Cached tokens the server reports for request i. */
const cachedAt = (i: number) => 40 * i;

describe('prompt caching on the OpenAI-compatible provider', () => {
  const received: Body[] = [];
  const vars = scopedEnv();
  let server: Server;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => {
        raw += d;
      });
      req.on('end', () => {
        received.push(JSON.parse(raw) as Body);
        const i = received.length - 1;
        const reply = SCRIPT[i] ?? { content: 'Done.' };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${i}`,
            object: 'chat.completion',
            created: 1,
            model: 'gpt-4.1',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', ...reply },
                finish_reason: 'tool_calls' in reply ? 'tool_calls' : 'stop',
              },
            ],
            usage: {
              prompt_tokens: 500 + i,
              completion_tokens: 10,
              total_tokens: 510 + i,
              prompt_tokens_details: { cached_tokens: cachedAt(i) },
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    vars.set({
      OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      OPENAI_API_KEY: 'sk-cache-test',
    });
  });
  const env = useRuntime();
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    vars.restore();
  });

  it('appends every turn, keeps the block order, sends one cache key and reports cached tokens', async () => {
    const bp = writeBlueprint(`
[agent]
name = "cache-e2e"
model = "openai:gpt-4.1"

[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
todos        = { kind = "checklist", max_tokens = 500 }
codebase     = { kind = "compacting", max_tokens = 8000 }
scratch      = { kind = "temporary", max_tokens = 4000 }
conversation = { kind = "sliding_window", max_tokens = 8000, max_items = 40, strategy = "bulk", overflow = 20 }

[stages.main]
available_tools = ["read_file", "todo_add", "context_append", "grep"]
[stages.main.tool_routing]
default_region = "scratch"
[stages.main.tool_routing.overrides]
read_file = "codebase"
`);
    const workdir = tempDir('cache-work');
    writeFileSync(join(workdir, 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(workdir, 'b.ts'), 'export const b = 2;\n');
    const lines = Array.from({ length: NEEDLES }, (_, i) => `needle ${i} in a haystack of charges`);
    writeFileSync(join(workdir, 'big.txt'), `${lines.join('\n')}\n`);
    const run = await runAgent(env.rt, bp, { task: 'Plan the fix.', workdir });

    expect(run.result.status).toBe('completed');
    expect(received).toHaveLength(SCRIPT.length);

    // The tail is the last message once todos hold something; the conversation is the rest.
    const isTail = (m: Body['messages'][number] | undefined) =>
      m?.role === 'user' && /^## todos\n/.test(m.content ?? '');
    const conversation = (b: Body) => {
      const messages = b.messages.filter((m) => m.role !== 'system');
      return isTail(messages.at(-1)) ? messages.slice(0, -1) : messages;
    };
    expect(conversation(received[0]!)).toEqual([{ role: 'user', content: BEGIN_MESSAGE }]);
    for (let i = 1; i < received.length; i++) {
      const before = conversation(received[i - 1]!);
      const now = conversation(received[i]!);
      expect(now.slice(0, before.length)).toEqual(before);
      expect(now.length).toBeGreaterThan(before.length);
      expect(now.some(isTail)).toBe(false);
    }

    const headings = (text: string) => [...text.matchAll(/^## (\w+)/gm)].map((m) => m[1]);
    const last = received.at(-1)!.messages;
    // codebase and scratch only append, so their entries are written in place, after the turn that
    // wrote them (docs/reference/rendering.md#writes-in-place); the system section keeps the task.
    expect(headings(last[0]!.content ?? '')).toEqual(['task']);
    const inPlace = last.filter((m) => m.role === 'user' && / \(new entry\)\n/.test(m.content ?? ''));
    expect(inPlace.map((m) => headings(m.content ?? '')[0])).toEqual(['codebase', 'scratch', 'scratch', 'codebase']);
    expect(last.at(-2)?.role).toBe('tool');
    const tail = last.at(-1)!;
    expect(tail.role).toBe('user');
    expect(headings(tail.content ?? '')).toEqual(['todos']);
    // The search result went to scratch as a blob; the model reads all of it, not the preview.
    expect(inPlace[2]?.content?.match(/needle \d+ in a haystack/g)).toHaveLength(NEEDLES);

    const keys = new Set(received.map((b) => b.prompt_cache_key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^lev-[0-9a-f]{32}$/);

    const cached = received.reduce((sum, _b, i) => sum + cachedAt(i), 0);
    expect(run.result.usage).toMatchObject({ calls: SCRIPT.length, cacheReadTokens: cached, cacheWriteTokens: 0 });
    const memo = (await run.handle.describe()).memo as { usage?: { cacheReadTokens?: number } };
    expect(memo.usage?.cacheReadTokens).toBe(cached);
  });
});

/** `lev context simulate` as a user runs it: the command's arguments, files on disk, output and exit codes. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lev as levInProcess } from './lev-in-process.js';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'test', 'fixtures', 'simulate');

function lev(...args: string[]) {
  return levInProcess(['context', 'simulate', ...args], { cwd: root });
}

describe('lev context simulate', () => {
  it('prints the docs/reference/simulator.md#json-output JSON shape with --json and exits 0 even when an event fails', async () => {
    const out = await lev(
      join(fixtures, 'routing'),
      '--events',
      join(fixtures, 'routing', 'events.jsonl'),
      '--window',
      '100000',
      '--json',
    );
    expect(out.code).toBe(0);
    expect(out.stderr).toBe('');
    const json = JSON.parse(out.stdout);
    expect(Object.keys(json)).toEqual(['results', 'regions', 'window', 'prompt', 'run']);
    expect(json.results).toHaveLength(7);
    expect(json.results.at(-1)).toMatchObject({ ok: false });
    expect(json.results.at(-1).text.startsWith('[unknown-region]')).toBe(true);
    expect(Object.keys(json.regions[0])).toEqual(['name', 'kind', 'budget', 'tokens', 'hidden', 'entries']);
    expect(Object.keys(json.regions.find((r: { name: string }) => r.name === 'codebase'))).toContain('threshold');
    expect(Object.keys(json.regions.find((r: { name: string }) => r.name === 'todos'))).toContain('open_items');
    expect(Object.keys(json.regions[0].entries[0])).toEqual(['index', 'key', 'kind', 'tokens', 'summary', 'preview']);
    expect(Object.keys(json.window)).toEqual(['max', 'used', 'gap']);
    expect(json.window.max).toBe(100000);
    expect(Object.keys(json.run)).toEqual(['stage', 'attempts', 'gates_forced', 'diagnostics']);
    expect(json.prompt.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expect(json.prompt.messages.at(-1)).toMatchObject({ role: 'user', tail: true });
    expect(json.prompt.messages[1].tool_calls.map((c: { id: string }) => c.id)).toEqual(['c1', 'c2']);
    expect(json.prompt.messages[2].tool_call_id).toBe('c1');
  });

  it('prints a readable report without --json', async () => {
    const out = await lev(
      join(fixtures, 'routing'),
      '--events',
      join(fixtures, 'routing', 'events.jsonl'),
      '--window',
      '100000',
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Events (7):');
    expect(out.stdout).toMatch(/FAIL \[unknown-region\]/);
    expect(out.stdout).toMatch(/Window: \d+ of 100000 tokens used/);
    expect(out.stdout).toContain('## codebase');
  });

  it('uses the start stage model window without --window', async () => {
    const out = await lev(join(fixtures, 'routing'), '--events', join(fixtures, 'routing', 'events.jsonl'), '--json');
    expect(JSON.parse(out.stdout).window.max).toBe(200000);
  });

  it('exits 2 naming the events file and line for a bad line', async () => {
    const events = join(fixtures, 'invalid', 'not-json.jsonl');
    const out = await lev(join(fixtures, 'routing'), '--events', events, '--json');
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`${events}:2: error [bad-event]`);

    const tokens = await lev(join(fixtures, 'routing'), '--events', join(fixtures, 'invalid', 'bad-tokens.jsonl'));
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toMatch(/bad-tokens\.jsonl:3: error \[bad-event\] "tokens" must be a non-negative integer/);
  });

  it('exits 2 naming the blueprint file and line for an invalid blueprint', async () => {
    const out = await lev(join(fixtures, 'invalid'), '--events', join(fixtures, 'routing', 'events.jsonl'));
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/invalid[\\/]agent\.toml:5:\d+: error \[bad-budget\]/);
  });

  it('exits 2 for an unknown --stage or an unreadable events file', async () => {
    expect(
      (await lev(join(fixtures, 'routing'), '--events', join(fixtures, 'routing', 'events.jsonl'), '--stage', 'nope'))
        .code,
    ).toBe(2);
    const missing = await lev(join(fixtures, 'routing'), '--events', join(fixtures, 'nope.jsonl'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('[events-unreadable]');
  });
});

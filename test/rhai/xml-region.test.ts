// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Rhai sources, whose back-tick strings use ${}.
/** The docs/rhai.md example region script: it compiles and its hooks return what the doc says. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, type RhaiScript } from '../../src/rhai/index.js';

const FIXTURE = join(import.meta.dirname, 'fixtures/xml_region.rhai');
const DOC = join(import.meta.dirname, '../../docs/rhai.md');

function load(): RhaiScript {
  const c = compile(readFileSync(FIXTURE, 'utf8'), 'context_hooks/xml_region.rhai');
  if (!c.ok) throw new Error(c.error.message);
  return c.script;
}

const region = { name: 'tool_log', budget: 2000, tokens: 30, entry_count: 3 };

describe('xml_region.rhai', () => {
  it('is the script shown in docs/rhai.md', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(doc).toContain(readFileSync(FIXTURE, 'utf8').trim());
  });

  it('compiles and defines the three hooks', () => {
    const s = load();
    expect(s.hasFunction('render', 1)).toBe(true);
    expect(s.hasFunction('on_write', 1)).toBe(true);
    expect(s.hasFunction('on_overflow', 1)).toBe(true);
  });

  it('render: all entries as one XML user message', () => {
    const ctx = {
      region,
      entries: [
        { content: 'find the bug', kind: 'user', key: null, tokens: 4, summary: false },
        { content: 'src/a.ts:3 <x> & "y"', kind: 'tool_result', key: 'grep', tokens: 8, summary: false },
        { content: 'earlier work', kind: 'text', key: null, tokens: 3, summary: true },
      ],
      stage: { name: 'fix', iteration: 2 },
      model: 'scripted:default',
      window: { used: 1000, max: 100000 },
    };
    expect(load().call('render', [ctx])).toEqual({
      ok: true,
      logs: [],
      value: {
        system: [],
        messages: [
          {
            role: 'user',
            content:
              '<region name="tool_log" stage="fix">\n' +
              '  <entry kind="user">find the bug</entry>\n' +
              '  <entry kind="tool_result" key="grep">src/a.ts:3 &lt;x&gt; &amp; &quot;y&quot;</entry>\n' +
              '  <entry kind="text" summary="true">earlier work</entry>\n' +
              '</region>',
          },
        ],
      },
    });
  });

  it('render: an empty region renders nothing', () => {
    const ctx = {
      region: { ...region, tokens: 0, entry_count: 0 },
      entries: [],
      stage: { name: 'fix', iteration: 1 },
      model: 'm',
      window: { used: 0, max: 1 },
    };
    expect(load().call('render', [ctx])).toEqual({ ok: true, value: '', logs: [] });
  });

  it('on_write: a successful tool result is cut to its first line', () => {
    const ctx = {
      region,
      entry: { content: 'ok: 3 files\r\nfile1\nfile2', kind: 'tool_result', key: 'ls', tokens: 9 },
    };
    expect(load().call('on_write', [ctx])).toEqual({ ok: true, value: 'ok: 3 files', logs: [] });
  });

  it('on_write: errors, single lines and other kinds are accepted unchanged (true)', () => {
    const s = load();
    const err = {
      region,
      entry: { content: 'Error: no such file\nat line 3', kind: 'tool_result', key: 'cat', tokens: 9 },
    };
    expect(s.call('on_write', [err])).toEqual({ ok: true, value: true, logs: [] });
    const flagged = {
      region,
      entry: { content: 'looks fine\nbut failed', kind: 'tool_result', key: null, tokens: 9, is_error: true },
    };
    expect(s.call('on_write', [flagged])).toEqual({ ok: true, value: true, logs: [] });
    const one = { region, entry: { content: 'done', kind: 'tool_result', key: null, tokens: 1 } };
    expect(s.call('on_write', [one])).toEqual({ ok: true, value: true, logs: [] });
    const text = { region, entry: { content: 'note\nmore', kind: 'text', key: null, tokens: 2 } };
    expect(s.call('on_write', [text])).toEqual({ ok: true, value: true, logs: [] });
  });

  it('on_overflow: evicts successes (oldest first) before errors, until enough is freed', () => {
    const entries = [
      { index: 0, content: 'error: build failed', key: null, tokens: 50 },
      { index: 1, content: 'ok: tests pass', key: null, tokens: 30 },
      { index: 2, content: 'Error: timeout', key: null, tokens: 40 },
      { index: 3, content: 'ok: lint clean', key: null, tokens: 20 },
    ];
    const s = load();
    expect(s.call('on_overflow', [{ region, entries, needed_tokens: 25 }])).toEqual({ ok: true, value: [1], logs: [] });
    expect(s.call('on_overflow', [{ region, entries, needed_tokens: 45 }])).toEqual({
      ok: true,
      value: [1, 3],
      logs: [],
    });
    expect(s.call('on_overflow', [{ region, entries, needed_tokens: 60 }])).toEqual({
      ok: true,
      value: [1, 3, 0],
      logs: [],
    });
    expect(s.call('on_overflow', [{ region, entries, needed_tokens: 1000 }])).toEqual({
      ok: true,
      value: [1, 3, 0, 2],
      logs: [],
    });
  });

  it('render over 1,000 entries fits the default operation budget', () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({
      content: `line ${i}`,
      kind: 'tool_result',
      key: `k${i}`,
      tokens: 3,
      summary: false,
    }));
    const r = load().call('render', [
      { region, entries, stage: { name: 's', iteration: 1 }, model: 'm', window: { used: 0, max: 1 } },
    ]);
    expect(r.ok).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import type { CustomRegionHooks } from '../../src/context/kinds/custom.js';
import {
  BEGIN_MESSAGE,
  CONTINUE_MESSAGE,
  CUSTOM_RENDER_FRAMING_TOKENS,
  GRANTS_BLOCK,
  type RenderContext,
  renderRegions,
  systemBlockText,
} from '../../src/context/render.js';
import type { Entry, PromptMessage, RegionState } from '../../src/shapes/content.js';
import type { RegionDef, RegionKind } from '../../src/shapes/frozen-blueprint.js';

let nextId = 1;

function region(
  name: string,
  kind: RegionKind,
  entries: Partial<Entry>[] = [],
  def: Partial<RegionDef> = {},
): RegionState {
  return {
    name,
    kind,
    def: {
      name,
      kind,
      admission: 'evict',
      volatility: 'rewritten',
      volatilityDeclared: false,
      summarizable: true,
      required: false,
      describeInPrompt: false,
      ...def,
    },
    budget: 10_000,
    entries: entries.map((e) => ({
      id: nextId++,
      content: '',
      tokens: 1,
      kind: 'text',
      created: 0,
      touched: 0,
      at: 0,
      ...e,
    })),
    pending: [],
    nextItemId: 1,
    updates: 0,
    foldFailures: 0,
  };
}

const ctx: RenderContext = {
  stage: 'main',
  iteration: 0,
  model: 'scripted:default',
  window: { used: 0, max: 100_000 },
};

function systemTexts(regions: RegionState[], c: RenderContext = ctx): string[] {
  return renderRegions(regions, c).system.map(systemBlockText);
}

describe('system blocks (docs/reference/rendering.md#system-blocks)', () => {
  it('heads each block with the region name and separates entries by a blank line', () => {
    const texts = systemTexts([region('notes', 'temporary', [{ content: 'first' }, { content: 'second' }])]);
    expect(texts).toEqual(['## notes\nfirst\n\nsecond']);
  });

  it('shows the description only with describe_in_prompt, followed by a blank line', () => {
    const described = region('task', 'pinned', [{ content: 'do it' }], {
      description: 'What the user asked for.',
      describeInPrompt: true,
    });
    const silent = region('rules', 'pinned', [{ content: 'be kind' }], {
      description: 'Hidden.',
      describeInPrompt: false,
    });
    expect(systemTexts([described, silent])).toEqual([
      '## task\nWhat the user asked for.\n\ndo it',
      '## rules\nbe kind',
    ]);
  });

  it('precedes keyed entries with a ### key line and summaries with a summary line', () => {
    const texts = systemTexts([
      region('files', 'hashmap', [
        { content: 'export {}', key: 'src/a.ts' },
        { content: 'folded text', summary: true, foldedEntries: 3 },
      ]),
    ]);
    expect(texts).toEqual(['## files\n### src/a.ts\nexport {}\n\n[summary of 3 earlier entries]\nfolded text']);
  });

  it('omits empty regions and hidden regions are never passed in', () => {
    expect(systemTexts([region('empty', 'temporary'), region('x', 'pinned', [{ content: 'kept' }])])).toEqual([
      '## x\nkept',
    ]);
  });

  it('renders a checklist as a count line, open items, notes, then done items (scenario 18)', () => {
    const todos = region('todos', 'checklist', [
      { content: 'alpha', checklist: { id: 1, done: true, noteTokens: 0 } },
      { content: 'beta', checklist: { id: 2, done: false, note: 'waiting', noteTokens: 1 } },
      { content: 'not an item' },
    ]);
    expect(systemTexts([todos])).toEqual(['## todos\n1 open, 1 done\n- [ ] #2 beta\n  note: waiting\n- [x] #1 alpha']);
  });

  it('renders nothing for a checklist without items', () => {
    expect(systemTexts([region('todos', 'checklist', [{ content: 'loose text' }])])).toEqual([]);
  });

  it('packs grows regions into blocks of at most 2048 tokens, oldest first, with continued headings', () => {
    const log = region(
      'log',
      'temporary',
      [
        { content: 'a', tokens: 1000 },
        { content: 'b', tokens: 1000 },
        { content: 'c', tokens: 1000 },
        { content: 'd', tokens: 3000 },
        { content: 'e', tokens: 10 },
      ],
      { volatility: 'grows' },
    );
    expect(systemTexts([log])).toEqual([
      '## log\na\n\nb',
      '## log (continued)\nc',
      '## log (continued)\nd',
      '## log (continued)\ne',
    ]);
  });

  it('appending to a grows region never changes an earlier block', () => {
    const entries = [
      { content: 'a', tokens: 1500 },
      { content: 'b', tokens: 400 },
    ];
    const before = systemTexts([region('log', 'temporary', entries, { volatility: 'grows' })]);
    const after = systemTexts([
      region('log', 'temporary', [...entries, { content: 'c', tokens: 500 }], { volatility: 'grows' }),
    ]);
    expect(after[0]).toBe(before[0]);
  });

  it('keeps blob references as references in the block text', () => {
    const blob = { hash: 'abc', bytes: 900_000, preview: 'big file' };
    const { system } = renderRegions([region('codebase', 'compacting', [{ content: blob, tokens: 200_000 }])], ctx);
    expect(system[0]?.text).toEqual(['## codebase\n', blob]);
  });
});

describe('system order (docs/reference/rendering.md#system-order)', () => {
  it('orders by volatility, then class, then region order; stage_instructions after every pinned block', () => {
    const regions = [
      region('scratch', 'temporary', [{ content: 's' }]),
      region('stage_instructions', 'pinned', [{ content: 'do the stage', stagePrompt: 'main' }]),
      region('todos', 'checklist', [{ content: 'x', checklist: { id: 1, done: false, noteTokens: 0 } }]),
      region('task', 'pinned', [{ content: 't' }]),
      region('history', 'compact_history', [{ content: 'h', summary: true, foldedEntries: 2 }]),
      region('facts', 'hashmap', [{ content: 'f', key: 'k' }], { volatility: 'stable' }),
      region('log', 'clearable', [{ content: 'l' }], { volatility: 'grows' }),
    ];
    const order = renderRegions(regions, ctx).system.map((b) => b.region);
    expect(order).toEqual(['facts', 'log', 'task', 'history', 'stage_instructions', 'todos', 'scratch']);
  });

  it("puts the stage's grants right after the stage instructions, the other blocks unmoved", () => {
    const regions = [
      region('scratch', 'temporary', [{ content: 's' }]),
      region('stage_instructions', 'pinned', [{ content: 'do the stage', stagePrompt: 'main' }]),
      region('todos', 'checklist', [{ content: 'x', checklist: { id: 1, done: false, noteTokens: 0 } }]),
      region('task', 'pinned', [{ content: 't' }]),
    ];
    const without = renderRegions(regions, ctx).system;
    const { system } = renderRegions(regions, { ...ctx, grantNote: 'In stage "main" you may call only: grep.' });
    expect(system.map((b) => b.region)).toEqual(['task', 'stage_instructions', GRANTS_BLOCK, 'todos', 'scratch']);
    expect(systemBlockText(system[2]!)).toBe('In stage "main" you may call only: grep.');
    expect(system.filter((b) => b.region !== GRANTS_BLOCK)).toEqual(without);
    // With no instructions region the grants follow every block of the instructions' class.
    const bare = renderRegions([regions[0]!, regions[3]!], { ...ctx, grantNote: 'g' }).system.map((b) => b.region);
    expect(bare).toEqual(['task', GRANTS_BLOCK, 'scratch']);
  });
});

describe('custom regions', () => {
  const hooks = (render: CustomRegionHooks['render']) => () => ({ render });

  it('uses a string verbatim, without a heading, and runs even when the region is empty', () => {
    const out = renderRegions([region('brain', 'custom')], {
      ...ctx,
      hooks: hooks(() => ({ ok: true, value: 'I am the brain' })),
    });
    expect(out.system.map(systemBlockText)).toEqual(['I am the brain']);
    expect(out.failures).toEqual([]);
  });

  it('passes the region, entries, stage, model and window to render', () => {
    let seen: unknown;
    renderRegions([region('brain', 'custom', [{ content: 'x', tokens: 3, key: 'k' }])], {
      ...ctx,
      iteration: 4,
      hooks: hooks((c) => {
        seen = c;
        return { ok: true, value: '' };
      }),
    });
    expect(seen).toMatchObject({
      region: { name: 'brain', tokens: 3, entry_count: 1 },
      entries: [{ content: 'x', kind: 'text', key: 'k', tokens: 3, summary: false }],
      stage: { name: 'main', iteration: 4 },
      model: 'scripted:default',
      window: { used: 0, max: 100_000 },
    });
  });

  it('accepts system arrays and messages; messages come before the conversation', () => {
    const out = renderRegions(
      [
        region('brain', 'custom', [], { persistent: true }),
        region('conversation', 'sliding_window', [{ kind: 'user', content: 'hello' }]),
      ],
      {
        ...ctx,
        hooks: hooks(() => ({
          ok: true,
          value: { system: ['one', 'two'], messages: [{ role: 'assistant', content: 'noted' }] },
        })),
      },
    );
    expect(out.system.map(systemBlockText)).toEqual(['one', 'two']);
    expect(out.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', BEGIN_MESSAGE],
      ['assistant', 'noted'],
      ['user', 'hello'],
    ]);
  });

  it('falls back to the default rendering and reports custom-render-failed', () => {
    const out = renderRegions([region('brain', 'custom', [{ content: 'raw' }])], {
      ...ctx,
      hooks: hooks(() => ({ ok: false, error: 'boom' })),
    });
    expect(out.system.map(systemBlockText)).toEqual(['## brain\nraw']);
    expect(out.failures).toEqual([{ code: 'custom-render-failed', severity: 'warning', detail: 'region brain: boom' }]);
  });

  describe('measured against the region budget (docs/reference/regions.md#custom-region-hooks)', () => {
    // One token per character; a cut keeps what fits before the marker.
    const meter = {
      count: (text: string) => text.length,
      cut: (text: string, tokens: number, marker: string) =>
        text.slice(0, Math.max(0, tokens - marker.length)) + marker,
    };
    const brain = (budget: number) => ({ ...region('brain', 'custom', [{ content: 'x' }]), budget });

    it('passes a render within the budget and its framing allowance as it is', () => {
      const out = renderRegions([brain(100 - CUSTOM_RENDER_FRAMING_TOKENS)], {
        ...ctx,
        meter,
        hooks: hooks(() => ({
          ok: true,
          value: { system: ['a'.repeat(60)], messages: [{ role: 'user', content: 'b'.repeat(40) }] },
        })),
      });
      expect(out.system.map(systemBlockText)).toEqual(['a'.repeat(60)]);
      expect(out.failures).toEqual([]);
    });

    it('cuts a render over the budget where it runs out, says so to the model, and reports it', () => {
      const out = renderRegions([brain(200 - CUSTOM_RENDER_FRAMING_TOKENS)], {
        ...ctx,
        meter,
        hooks: hooks(() => ({
          ok: true,
          value: { system: ['a'.repeat(50), 'b'.repeat(524_288), 'c'], messages: [{ role: 'user', content: 'd' }] },
        })),
      });
      const texts = out.system.map(systemBlockText);
      expect(texts).toHaveLength(2);
      expect(texts[0]).toBe('a'.repeat(50));
      expect(texts[1]).toMatch(
        /^b+\n\[custom-render-over-budget\] region brain rendered 524340 tokens, over its budget of 136; the rest was cut/,
      );
      expect(texts.join('').length).toBeLessThanOrEqual(200);
      expect(out.messages.map((m) => m.content)).not.toContain('d');
      expect(out.failures).toEqual([
        {
          code: 'custom-render-over-budget',
          severity: 'warning',
          detail: 'region brain rendered 524340 tokens, over its budget of 136',
        },
      ]);
    });

    it('is not measured without a meter', () => {
      const out = renderRegions([brain(10)], { ...ctx, hooks: hooks(() => ({ ok: true, value: 'z'.repeat(500) })) });
      expect(out.system.map(systemBlockText)).toEqual(['z'.repeat(500)]);
    });
  });

  it('treats a malformed return value as a failure', () => {
    const out = renderRegions([region('brain', 'custom', [{ content: 'raw' }])], {
      ...ctx,
      hooks: hooks(() => ({ ok: true, value: 42 })),
    });
    expect(out.failures).toHaveLength(1);
    expect(out.system.map(systemBlockText)).toEqual(['## brain\nraw']);
  });
});

/** Messages without cache marks, which the docs/reference/rendering.md#cache-markers tests cover separately. */
function uncached(messages: PromptMessage[]): PromptMessage[] {
  return messages.map(({ cache: _cache, ...m }) => m as PromptMessage);
}

describe('messages (docs/reference/rendering.md#messages)', () => {
  const call = (id: string) => ({ id, name: 'read_file', arguments: { path: 'a' } });

  it('maps entry kinds to roles and puts conversation last', () => {
    const out = renderRegions(
      [
        region('conversation', 'sliding_window', [
          { kind: 'user', content: 'q' },
          { kind: 'assistant', content: 'reading', toolCalls: [call('t1')] },
          { kind: 'tool_result', content: 'file text', toolCallId: 't1', toolName: 'read_file', isError: true },
          { kind: 'text', content: 'a nudge' },
        ]),
        region('notes_window', 'sliding_window', [{ kind: 'text', content: 'earlier note' }]),
      ],
      ctx,
    );
    expect(uncached(out.messages)).toEqual([
      { role: 'user', content: 'earlier note' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'reading', toolCalls: [call('t1')] },
      { role: 'tool', toolCallId: 't1', toolName: 'read_file', content: 'file text', isError: true },
      { role: 'user', content: 'a nudge' },
    ]);
  });

  it('strips orphan calls and results and drops an assistant left empty', () => {
    const out = renderRegions(
      [
        region('conversation', 'sliding_window', [
          { kind: 'tool_result', content: 'lost result', toolCallId: 't0', toolName: 'grep' },
          { kind: 'user', content: 'q' },
          { kind: 'assistant', content: '', toolCalls: [call('t1')] },
          { kind: 'assistant', content: 'two calls', toolCalls: [call('t2'), call('t3')] },
          { kind: 'tool_result', content: 'r2', toolCallId: 't2', toolName: 'read_file' },
        ]),
      ],
      ctx,
    );
    expect(uncached(out.messages)).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'two calls', toolCalls: [call('t2')] },
      { role: 'tool', toolCallId: 't2', toolName: 'read_file', content: 'r2' },
    ]);
  });

  it('drops blank messages and asks the model to begin when there is no user message', () => {
    const out = renderRegions([region('conversation', 'sliding_window', [{ kind: 'user', content: '   ' }])], ctx);
    expect(uncached(out.messages)).toEqual([{ role: 'user', content: BEGIN_MESSAGE }]);
  });

  it('asks the model to continue after a trailing assistant message', () => {
    const out = renderRegions(
      [
        region('conversation', 'sliding_window', [
          { kind: 'user', content: 'q' },
          { kind: 'assistant', content: 'thinking' },
        ]),
      ],
      ctx,
    );
    expect(uncached(out.messages).at(-1)).toEqual({ role: 'user', content: CONTINUE_MESSAGE });
  });

  it('carries blob content as its preview plus the reference', () => {
    const blob = { hash: 'h', bytes: 10, preview: 'pre' };
    const out = renderRegions([region('conversation', 'sliding_window', [{ kind: 'user', content: blob }])], ctx);
    expect(uncached(out.messages)).toEqual([{ role: 'user', content: 'pre', blob }]);
  });
});

describe('tail (docs/reference/rendering.md#tail)', () => {
  const tailed = (name: string, kind: RegionKind, entries: Partial<Entry>[], def: Partial<RegionDef> = {}) =>
    region(name, kind, entries, { placement: 'tail', ...def });
  const conversation = () =>
    region('conversation', 'sliding_window', [
      { kind: 'user', content: 'go' },
      { kind: 'assistant', content: 'reading', toolCalls: [{ id: 'c1', name: 'read_file', arguments: {} }] },
      { kind: 'tool_result', content: 'file text', toolCallId: 'c1', toolName: 'read_file' },
    ]);

  it('joins the tail blocks in system order into one user message after the conversation', () => {
    const out = renderRegions(
      [
        region('task', 'pinned', [{ content: 'the task' }], { volatility: 'stable', placement: 'system' }),
        tailed('scratch', 'temporary', [{ content: 'a note' }]),
        tailed('todos', 'checklist', [{ content: 'step', checklist: { id: 1, done: false, noteTokens: 0 } }]),
        conversation(),
      ],
      ctx,
    );
    expect(out.system.map((b) => b.region)).toEqual(['task']);
    expect(uncached(out.messages).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    // The checklist's class sorts it before scratch, as it would in the system section.
    expect(out.messages.at(-1)).toEqual({
      role: 'user',
      content: '## todos\n1 open, 0 done\n- [ ] #1 step\n\n## scratch\na note',
      tail: true,
    });
  });

  it('marks the last conversation message for the cache, never the tail', () => {
    const out = renderRegions([tailed('scratch', 'temporary', [{ content: 'a note' }]), conversation()], ctx);
    expect(out.messages.map((m) => m.cache === true)).toEqual([false, false, true, false]);
  });

  it('follows the kick-off message when the conversation is empty', () => {
    const out = renderRegions([tailed('scratch', 'temporary', [{ content: 'a note' }])], ctx);
    expect(uncached(out.messages)).toEqual([
      { role: 'user', content: BEGIN_MESSAGE },
      { role: 'user', content: '## scratch\na note', tail: true },
    ]);
  });

  it('carries blob entries as parts for the inference activity to fill in, previews in the content', () => {
    const blob = { hash: 'h', bytes: 5000, preview: 'grep output…' };
    const out = renderRegions([tailed('scratch', 'temporary', [{ content: 'short' }, { content: blob }])], ctx);
    expect(out.messages.at(-1)).toEqual({
      role: 'user',
      content: '## scratch\nshort\n\ngrep output…',
      parts: ['## scratch\nshort\n\n', blob],
      tail: true,
    });
  });

  it('is left out when no region is placed there, and a definition without a placement stays in the system section', () => {
    const out = renderRegions([region('scratch', 'temporary', [{ content: 'a note' }]), conversation()], ctx);
    expect(out.system.map((b) => b.region)).toEqual(['scratch']);
    expect(out.messages.some((m) => m.role === 'user' && m.tail)).toBe(false);
  });

  it('keeps the system key when only the tail changes', () => {
    const task = region('task', 'pinned', [{ content: 't' }], { volatility: 'stable', placement: 'system' });
    const one = renderRegions([task, tailed('scratch', 'temporary', [{ content: 'a' }])], ctx);
    const two = renderRegions([task, tailed('scratch', 'temporary', [{ content: 'b' }])], ctx);
    expect(two.systemKey).toBe(one.systemKey);
    expect(two.messages.at(-1)?.content).not.toBe(one.messages.at(-1)?.content);
  });
});

describe('cache markers (docs/reference/rendering.md#cache-markers)', () => {
  const layout = (n: number) => [
    region('task', 'pinned', [{ content: 't' }]),
    region('rules', 'pinned', [{ content: 'r' }]),
    region('stage_instructions', 'pinned', [{ content: 'p', stagePrompt: 'main' }]),
    region('scratch', 'temporary', [{ content: 's' }]),
    region(
      'conversation',
      'sliding_window',
      Array.from({ length: n }, (_, i) => ({ kind: 'user' as const, content: `m${i}` })),
    ),
  ];

  it('marks the last block of each volatility class and the last message', () => {
    const out = renderRegions(layout(6), ctx);
    // task and rules are stable; stage_instructions and scratch are rewritten.
    const stable = layout(6).map((r) =>
      r.name === 'task' || r.name === 'rules' ? { ...r, def: { ...r.def, volatility: 'stable' as const } } : r,
    );
    expect(out.system.filter((b) => b.cache).map((b) => b.region)).toEqual(['scratch']);
    const marked = renderRegions(stable, ctx);
    expect(marked.system.filter((b) => b.cache).map((b) => b.region)).toEqual(['rules', 'scratch']);
    expect(marked.messages.map((m, i) => (m.cache ? i : -1)).filter((i) => i >= 0)).toEqual([5]);
  });

  it('marks at most one block per class, so at most four marks with the message', () => {
    const regions = [
      region('task', 'pinned', [{ content: 't' }], { volatility: 'stable' }),
      region('code', 'compacting', [{ content: 'c' }], { volatility: 'grows' }),
      region('history', 'compact_history', [{ content: 'h' }], { volatility: 'grows' }),
      region('todos', 'temporary', [{ content: 'x' }]),
      region('scratch', 'temporary', [{ content: 's' }]),
      region('conversation', 'sliding_window', [{ kind: 'user', content: 'go' }]),
    ];
    const out = renderRegions(regions, ctx);
    expect(out.system.map((b) => [b.region, b.cache === true])).toEqual([
      ['task', true],
      ['history', false],
      ['code', true],
      ['todos', false],
      ['scratch', true],
    ]);
    expect(out.messages.filter((m) => m.cache)).toHaveLength(1);
  });

  it('changes the system key when a keyed entry is replaced in place, even at the same size', () => {
    const before = region('files', 'hashmap', [{ content: 'v1', key: 'a', tokens: 5, touched: 3 }]);
    const after = { ...before, entries: before.entries.map((e) => ({ ...e, content: 'v2', touched: 9 })) };
    expect(renderRegions([after], ctx).systemKey).not.toBe(renderRegions([before], ctx).systemKey);
  });

  it('keeps the system key when only messages change', () => {
    const files = region('files', 'hashmap', [{ content: 'v1', key: 'a' }]);
    const one = renderRegions([files, region('conversation', 'sliding_window', [{ kind: 'user', content: 'a' }])], ctx);
    const two = renderRegions(
      [
        files,
        region('conversation', 'sliding_window', [
          { kind: 'user', content: 'a' },
          { kind: 'user', content: 'b' },
        ]),
      ],
      ctx,
    );
    expect(two.systemKey).toBe(one.systemKey);
  });
});

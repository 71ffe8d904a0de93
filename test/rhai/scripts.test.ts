// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Rhai sources, whose back-tick strings use ${}.
/** Whole scripts of the kind blueprints ship, and scripts that try to burn time. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/rhai/index.js';
import { evaluate } from './table.js';

const BRAIN = `
// context_hooks/brain.rhai: a notes region that keeps a sorted, numbered digest
const MAX_LINE = 40;

fn shorten(text, max) {
    let t = text.trim();
    if t.len() > max { t.sub_string(0, max - 3) + "..." } else { t }
}

fn render(ctx) {
    let notes = ctx.entries.filter(|e| !e.content.is_empty());
    if notes.is_empty() { return ""; }
    notes.sort(|a, b| b.tokens - a.tokens);
    let lines = [];
    for (e, i) in notes {
        let label = e.key ?? "note";
        lines.push(\`\${i + 1}. [\${label}] \${shorten(e.content, 40)}\`);
    }
    let total = ctx.entries.reduce(|sum, e| sum + e.tokens, 0);
    #{
        system: "## brain (" + total + " tokens)\\n" + lines.join("\\n"),
        messages: []
    }
}

fn on_write(ctx) {
    let text = ctx.entry.content;
    switch ctx.entry.kind {
        "assistant" => false,
        "tool_result" if text.len() > 100 => text.sub_string(0, 100),
        _ => true
    }
}

fn on_overflow(ctx) {
    let order = ctx.entries.map(|e| #{ i: e.index, t: e.tokens });
    order.sort(|a, b| b.t - a.t);
    let out = [];
    let freed = 0;
    for o in order {
        if freed >= ctx.needed_tokens { break; }
        out.push(o.i);
        freed += o.t;
    }
    out
}
`;

describe('a realistic region script', () => {
  const c = compile(BRAIN, 'context_hooks/brain.rhai');
  if (!c.ok) throw new Error(c.error.message);
  const s = c.script;
  const region = { name: 'brain', budget: 500, tokens: 60, entry_count: 3 };

  it('render', () => {
    const r = s.call('render', [
      {
        region,
        entries: [
          { content: '  small fact  ', kind: 'text', key: null, tokens: 5, summary: false },
          {
            content: 'a very long observation that will certainly be shortened by the script',
            kind: 'text',
            key: 'obs',
            tokens: 50,
            summary: false,
          },
          { content: '', kind: 'text', key: null, tokens: 0, summary: false },
        ],
        stage: { name: 'plan', iteration: 1 },
        model: 'm',
        window: { used: 10, max: 100 },
      },
    ]);
    expect(r).toEqual({
      ok: true,
      logs: [],
      value: {
        system: '## brain (55 tokens)\n1. [obs] a very long observation that will cer...\n2. [note] small fact',
        messages: [],
      },
    });
  });

  it('on_write', () => {
    const entry = (kind: string, content: string) => ({ region, entry: { content, kind, key: null, tokens: 1 } });
    expect(s.call('on_write', [entry('assistant', 'x')])).toMatchObject({ value: false });
    expect(s.call('on_write', [entry('tool_result', 'y'.repeat(150))])).toMatchObject({ value: 'y'.repeat(100) });
    expect(s.call('on_write', [entry('tool_result', 'short')])).toMatchObject({ value: true });
    expect(s.call('on_write', [entry('text', 'z')])).toMatchObject({ value: true });
  });

  it('on_overflow', () => {
    const entries = [10, 40, 20].map((tokens, index) => ({ index, content: 'c', key: null, tokens }));
    expect(s.call('on_overflow', [{ region, entries, needed_tokens: 45 }])).toMatchObject({ value: [1, 2] });
  });
});

describe('seed scripts', () => {
  it('the docs/rhai.md seed example gives the plan it builds', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/rhai.md'), 'utf8');
    const src = /## Seeds[\s\S]*?```rhai\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(src).toBeDefined();
    const c = compile(src!, 'seeds/plan.rhai');
    if (!c.ok) throw new Error(c.error.message);
    expect(c.script.run({ task: 'fix bug\n\n  write test ', workdir: '/w' })).toEqual({
      ok: true,
      value: 'Plan for /w:\n1. fix bug\n2. write test',
      logs: [],
    });
  });

  it('builds a plan from the task', () => {
    const c = compile(
      'let steps = task.split("\\n").filter(|l| !l.trim().is_empty());\nlet out = `Plan for ${workdir}:`;\nfor (s, i) in steps { out += "\\n" + `${i + 1}. ${s.trim()}`; }\nout',
      'seeds/plan.rhai',
    );
    if (!c.ok) throw new Error(c.error.message);
    expect(c.script.run({ task: ' fix bug \n\n write test', workdir: '/w' })).toEqual({
      ok: true,
      value: 'Plan for /w:\n1. fix bug\n2. write test',
      logs: [],
    });
  });

  it('back-tick strings are literal and may span lines', () => {
    expect(evaluate('let x = `\nline one\n  "two" \\n ${1 + 1}`; x')).toMatchObject({
      value: 'line one\n  "two" \\n 2',
    });
  });
});

describe('scripts that try to burn time end within the operation budget', () => {
  const burners = [
    'let a = []; for i in 0..25000 { a.push(i) } loop { let b = a; }',
    'let a = []; for i in 0..25000 { a.push(i) } loop { a.contains(-1); }',
    'let a = []; for i in 0..25000 { a.push(i) } loop { let s = a.to_string(); }',
    'let a = []; for i in 0..25000 { a.push(i) } loop { a.sort(); }',
    'let a = []; for i in 0..25000 { a.push(i) } loop { a.insert(0, 1); }',
    'let s = "x"; for i in 0..19 { s += s } loop { s.index_of("y"); }',
    'let s = "x"; for i in 0..19 { s += s } loop { let t = s.to_upper(); }',
    'let s = "x"; for i in 0..19 { s += s } loop { s.replace("x", "y"); }',
    'let s = "ab"; loop { s.pad(900000, "xy"); }',
    'let m = #{}; for i in 0..20000 { m["k" + i] = i } loop { let k = m.keys(); }',
  ];
  for (const src of burners) {
    it(src, () => {
      // Bulk work is charged as operations, so each burner hits the limit instead of running on
      // (a burner that escaped the charge would run into the test timeout).
      const r = evaluate(src);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('rhai-limit');
    });
  }

  it('building a 20,000-element array or a long string still fits the default budget', () => {
    expect(evaluate('let a = []; for i in 0..20000 { a.push(i) } a.len()')).toMatchObject({ ok: true, value: 20000 });
    expect(evaluate('let s = ""; for i in 0..20000 { s += "ab" } s.len()')).toMatchObject({ ok: true, value: 40000 });
  });
});

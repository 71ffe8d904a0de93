/**
 * Rhai interpreter bench: a typical custom-region `render(ctx)` hook that
 * builds an XML-ish string from 1,000 entries.
 *
 *   node --import tsx bench/rhai.ts    (or: npm run bench -- rhai)
 */
import { pathToFileURL } from 'node:url';
import { compile } from '../src/rhai/index.js';

const RENDER_HOOK = `
fn esc(text) {
    let s = text.to_string();
    s.replace("&", "&amp;");
    s.replace("<", "&lt;");
    s.replace(">", "&gt;");
    s
}

fn render(ctx) {
    if ctx.entries.is_empty() { return ""; }
    let out = \`<region name="\${ctx.region.name}" tokens="\${ctx.region.tokens}">\`;
    for e in ctx.entries {
        let attrs = \`kind="\${e.kind}" tokens="\${e.tokens}"\`;
        if e.key != () { attrs += \` key="\${esc(e.key)}"\`; }
        out += "\\n  <entry " + attrs + ">" + esc(e.content) + "</entry>";
    }
    out + "\\n</region>"
}
`;

export interface RhaiBenchResult {
  entries: number;
  medianUs: number;
  p95Us: number;
}

function makeCtx(entries: number) {
  return {
    region: { name: 'tool_log', budget: 50_000, tokens: entries * 12, entry_count: entries },
    entries: Array.from({ length: entries }, (_, i) => ({
      content: `result ${i}: ${i % 3 === 0 ? 'a <b> & c' : 'plain text of a typical tool result line'}`,
      kind: i % 2 === 0 ? 'tool_result' : 'text',
      key: i % 4 === 0 ? `file_${i}.ts` : null,
      tokens: 12,
      summary: false,
    })),
    stage: { name: 'work', iteration: 1 },
    model: 'scripted:default',
    window: { used: 10_000, max: 200_000 },
  };
}

/** Times `render(ctx)` over 1,000 entries; microseconds per call. */
export function benchRenderHook(iterations = 60): RhaiBenchResult {
  const entries = 1000;
  const c = compile(RENDER_HOOK, 'bench/render.rhai');
  if (!c.ok) throw new Error(c.error.message);
  const ctx = makeCtx(entries);
  for (let i = 0; i < 5; i++) {
    const r = c.script.call('render', [ctx]);
    if (!r.ok) throw new Error(r.error.message);
  }
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    const r = c.script.call('render', [ctx]);
    times.push((performance.now() - t) * 1000);
    if (!r.ok) throw new Error(r.error.message);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { entries, medianUs: Math.round(at(0.5)), p95Us: Math.round(at(0.95)) };
}

/** Prints a small table; `npm run bench -- rhai` and a direct run both land here. */
export default function run(): void {
  const r = benchRenderHook();
  console.log('| bench | entries | median (us) | p95 (us) |');
  console.log('|---|---:|---:|---:|');
  console.log(`| rhai render(ctx) | ${r.entries} | ${r.medianUs} | ${r.p95Us} |`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) run();

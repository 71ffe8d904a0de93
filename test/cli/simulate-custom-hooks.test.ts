/**
 * Issue scenario: a custom region whose three Rhai hooks all act, end to
 * end through `lev context simulate` — tool output routed into it is cut to
 * its first line on write, overflow evicts successes before errors, and the
 * region renders as one XML user message.
 */
import { describe, expect, it } from 'vitest';
import { previews, region, sim } from '../fixtures/simulate/harness.js';

const SCRIPT = `
fn failed(text) { text.to_string().to_lower().starts_with("error") }

fn render(ctx) {
  if ctx.entries.is_empty() { return ""; }
  let xml = \`<log entries="\${ctx.entries.len()}">\`;
  for e in ctx.entries { xml += "\\n  <result>" + e.content + "</result>"; }
  #{ system: [], messages: [#{ role: "user", content: xml + "\\n</log>" }] }
}

fn on_write(ctx) {
  let text = ctx.entry.content;
  if failed(text) { return true; }
  let nl = text.index_of("\\n");
  if nl < 0 { true } else { text.sub_string(0, nl) }
}

fn on_overflow(ctx) {
  let order = ctx.entries.filter(|e| !failed(e.content)) + ctx.entries.filter(|e| failed(e.content));
  let evict = [];
  let freed = 0;
  for e in order {
    if freed >= ctx.needed_tokens { break; }
    evict.push(e.index);
    freed += e.tokens;
  }
  evict
}
`;

const TOML = `
[context.regions]
log = { kind = "custom", script = "log.rhai", max_tokens = 20 }

[stages.main.tool_routing]
default_region = "log"
`;

const call = (id: string) => ({ id, name: 'shell', arguments: { command: `step ${id}` } });

describe('a custom region with render, on_write and on_overflow', () => {
  it('trims successes on write, evicts successes before errors, and renders one XML message', () => {
    const out = sim(
      TOML,
      [
        { op: 'assistant', content: 'running four steps', tool_calls: [call('b'), call('a'), call('c'), call('d')] },
        { op: 'tool_result', tool_call_id: 'b', tool_name: 'shell', content: 'error: b failed badly', is_error: true },
        { op: 'tool_result', tool_call_id: 'a', tool_name: 'shell', content: 'ok a\nline two\nline three' },
        { op: 'tool_result', tool_call_id: 'c', tool_name: 'shell', content: 'ok c\nmore output' },
        {
          op: 'tool_result',
          tool_call_id: 'd',
          tool_name: 'shell',
          content: 'ok d with a much longer single line of output that needs room',
        },
      ],
      {},
      { 'log.rhai': SCRIPT },
    );
    // Successes were stored as their first line. The last write overflowed the region: the script
    // evicted the oldest success ("ok a"), not the older error.
    expect(previews(out, 'log')).toEqual(['error: b failed badly', 'ok c', expect.stringMatching(/^ok d/)]);
    expect(region(out, 'log').tokens).toBeLessThanOrEqual(20);
    const xml = out.prompt.messages.find((m) => m.role === 'user' && m.content.startsWith('<log'));
    expect(xml?.content).toContain('<result>error: b failed badly</result>');
    expect(out.prompt.system.some((s) => s.includes('## log'))).toBe(false);
    expect(out.run.diagnostics.filter((d) => d.code.startsWith('custom-'))).toEqual([]);
  });
});

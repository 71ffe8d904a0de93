/** Custom regions in the simulator: their Rhai hooks run, and a failing render falls back. */
import { describe, expect, it } from 'vitest';
import { previews, region, sim } from '../fixtures/simulate/harness.js';

const TOML = `
[context.regions]
brain = { kind = "custom", script = "brain.rhai", max_tokens = 500 }
`;

describe('custom regions in the simulator', () => {
  it('renders through the script, even when empty, and applies on_write', () => {
    const script = `
fn render(ctx) {
  if ctx.region.entry_count == 0 { return "brain is empty"; }
  #{ system: ["brain holds " + ctx.region.entry_count + " entries"], messages: [#{ role: "user", content: "from the brain" }] }
}
fn on_write(ctx) {
  if ctx.entry.content == "drop me" { return false; }
  true
}
`;
    const empty = sim(TOML, [], {}, { 'brain.rhai': script });
    expect(empty.prompt.system).toEqual(['brain is empty']);

    const out = sim(
      TOML,
      [
        { op: 'context_append', region: 'brain', content: 'keep me' },
        { op: 'context_append', region: 'brain', content: 'drop me' },
      ],
      {},
      { 'brain.rhai': script },
    );
    expect(previews(out, 'brain')).toEqual(['keep me']);
    expect(out.prompt.system).toEqual(['brain holds 1 entries']);
    expect(out.prompt.messages[0]).toEqual({ role: 'user', content: 'from the brain' });
  });

  it('falls back to the default rendering and records custom-render-failed', () => {
    const out = sim(
      TOML,
      [{ op: 'context_append', region: 'brain', content: 'raw note' }],
      {},
      { 'brain.rhai': 'fn render(ctx) { ctx.missing.field }\n' },
    );
    expect(out.prompt.system).toEqual(['## brain\nraw note']);
    expect(out.run.diagnostics.some((d) => d.code === 'custom-render-failed' && d.detail.includes('brain'))).toBe(true);
    expect(region(out, 'brain').tokens).toBeGreaterThan(0);
  });

  it('cuts a render of 524,288 characters to the region budget and records custom-render-over-budget', () => {
    const script = 'fn render(ctx) { let s = "abcd"; for i in 0..17 { s += s; } s }\n';
    const out = sim(TOML, [], {}, { 'brain.rhai': script });
    const [text] = out.prompt.system as [string];
    expect(text.length).toBeLessThan(5_000);
    expect(text).toMatch(
      /\n\[custom-render-over-budget\] region brain rendered \d+ tokens, over its budget of 500; the rest was cut/,
    );
    const recorded = out.run.diagnostics.find((d) => d.code === 'custom-render-over-budget');
    expect(recorded?.detail).toMatch(/^region brain rendered \d+ tokens, over its budget of 500$/);
  });

  it('shows render the inferences already made in the visit as stage.iteration, as the runtime does', () => {
    const script = 'fn render(ctx) { "iteration " + ctx.stage.iteration }\n';
    expect(sim(TOML, [], {}, { 'brain.rhai': script }).prompt.system).toEqual(['iteration 0']);
    const twoTurns = sim(
      TOML,
      [
        { op: 'assistant', content: 'first' },
        { op: 'assistant', content: 'second' },
      ],
      {},
      { 'brain.rhai': script },
    );
    expect(twoTurns.prompt.system).toEqual(['iteration 2']);
  });
});

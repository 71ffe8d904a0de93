/**
 * A custom region through the real runtime: its Rhai `on_write` runs in the
 * workflow (the stored text is what the script returned), its `render` runs
 * in the inference activity, and a failing `render` is recorded in the run's
 * diagnostics instead of breaking the inference; a render over the region's
 * budget is cut there and recorded too.
 */
import { describe, expect, it } from 'vitest';
import { runAgent, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';

const SCRIPT = `
fn on_write(ctx) { "kept: " + ctx.entry.content.sub_string(0, 5) }
fn render(ctx) {
  if ctx.region.entry_count > 1 { throw "too many entries to render"; }
  "brain: " + ctx.region.entry_count
}
`;

describe('a custom region on a real run', () => {
  const env = useRuntime();

  it('applies on_write, calls render at every inference, and records a failing render', async () => {
    const long = 'a long observation '.repeat(30);
    const model = scriptedModel({
      turns: [
        { text: 'Noting.', tool_calls: [{ name: 'context_append', arguments: { region: 'brain', content: long } }] },
        {
          text: 'Noting again.',
          tool_calls: [{ name: 'context_append', arguments: { region: 'brain', content: long } }],
        },
        { text: 'Done.' },
      ],
    });
    const bp = writeBlueprint(
      `
[agent]
name = "brainy"
model = "${model}"
[context.regions]
task  = { kind = "pinned" }
brain = { kind = "custom", script = "hooks/brain.rhai", max_tokens = 500 }
`,
      { 'hooks/brain.rhai': SCRIPT },
    );
    const { result } = await runAgent(env.rt, bp, { task: 'observe' });
    expect(result.status).toBe('completed');
    const brain = result.regions.find((r) => r.name === 'brain')!;
    // Two entries of "kept: a lon", a few tokens each, not the 150-token observations written.
    expect(brain.entries).toBe(2);
    expect(brain.tokens).toBeLessThan(20);
    // The third inference saw two entries: render threw, the default rendering was used, and the run went on.
    expect(result.diagnostics.filter((d) => d.code === 'custom-render-failed')).toHaveLength(1);
    expect(result.diagnostics.find((d) => d.code === 'custom-render-failed')?.detail).toContain('too many entries');
  });

  it('cuts a render over the region budget in the request and records custom-render-over-budget', async () => {
    const model = scriptedModel({ turns: [{ text: 'Done.' }] });
    const bp = writeBlueprint(
      `
[agent]
name = "loud-brain"
model = "${model}"
[context.regions]
task  = { kind = "pinned" }
brain = { kind = "custom", script = "hooks/brain.rhai", max_tokens = 300 }
`,
      { 'hooks/brain.rhai': 'fn render(ctx) { let s = "abcd"; for i in 0..17 { s += s; } s }\n' },
    );
    const { result } = await runAgent(env.rt, bp, { task: 'observe' });
    expect(result.status).toBe('completed');
    // The scripted model charges a request a token per 4 characters: 524,288 would be over 130,000.
    expect(result.usage.promptTokens).toBeLessThan(10_000);
    const cut = result.diagnostics.filter((d) => d.code === 'custom-render-over-budget');
    expect(cut).toHaveLength(1);
    expect(cut[0]?.detail).toMatch(/^region brain rendered \d+ tokens, over its budget of 300$/);
  });
});

/**
 * Where each region renders (docs/reference/rendering.md#placement): the
 * defaults by volatility, the region key and `[context] placement`, and
 * what `lev validate` reports about them.
 */
import { describe, expect, it } from 'vitest';
import { defaultPlacement } from '../../src/blueprint/placement.js';
import type { RegionDef } from '../../src/shapes/frozen-blueprint.js';
import { codesOf, loadToml } from './helpers.js';

function placements(toml: string): Record<string, string | undefined> {
  const result = loadToml(toml);
  if (!result.blueprint) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return Object.fromEntries(result.blueprint.regions.map((r) => [r.name, r.placement]));
}

const EVERY_KIND = `[context.regions]
task               = { kind = "pinned" }
stage_instructions = { kind = "pinned" }
todos              = { kind = "checklist" }
code               = { kind = "compacting" }
history            = { kind = "compact_history", source_region = "code" }
files              = { kind = "hashmap" }
scratch            = { kind = "temporary" }
notes              = { kind = "clearable" }
brain              = { kind = "custom", script = "brain.rhai" }
conversation       = { kind = "sliding_window" }
`;

describe('default placement', () => {
  it('puts rewritten regions in the tail and the rest in the system section; windows have none', () => {
    const result = loadToml(EVERY_KIND, { 'brain.rhai': 'fn render(ctx) { "brain" }' });
    const bp = result.blueprint!;
    expect(Object.fromEntries(bp.regions.map((r) => [r.name, r.placement]))).toEqual({
      task: 'system',
      stage_instructions: 'system',
      todos: 'tail',
      code: 'system',
      history: 'system',
      files: 'system',
      scratch: 'tail',
      notes: 'tail',
      brain: 'system',
      conversation: undefined,
      tool_results: 'tail',
      final_output: 'system',
    });
  });

  it('follows a declared volatility, in the global layout and in a stage re-declaration', () => {
    const got = placements(`[context.regions]
todos    = { kind = "checklist", volatility = "grows" }
findings = { kind = "hashmap", volatility = "rewritten" }
[stages.main.context.regions]
todos    = { volatility = "rewritten" }
`);
    expect(got).toMatchObject({ todos: 'system', findings: 'tail' });
    const stage = loadToml(`[context.regions]
todos = { kind = "checklist", volatility = "grows" }
[stages.main.context.regions]
todos = { volatility = "rewritten" }
`).blueprint!.stages[0]!.regions!;
    expect(stage.find((r) => r.name === 'todos')?.placement).toBe('tail');
  });

  it('lets a region choose, and a stage inherit or override the choice', () => {
    const result = loadToml(`[context.regions]
todos  = { kind = "checklist", placement = "system" }
rules  = { kind = "pinned", placement = "tail" }
[stages.a.context.regions]
todos  = {}
[stages.b.context.regions]
todos  = { placement = "tail" }
`);
    const bp = result.blueprint!;
    expect(bp.regions.find((r) => r.name === 'todos')?.placement).toBe('system');
    expect(bp.regions.find((r) => r.name === 'rules')?.placement).toBe('tail');
    const inStage = (stage: string) =>
      bp.stages.find((s) => s.name === stage)?.regions?.find((r) => r.name === 'todos')?.placement;
    expect(inStage('a')).toBe('system');
    expect(inStage('b')).toBe('tail');
  });

  it('keeps everything in the system section with [context] placement = "system", unless a region says tail', () => {
    const got = placements(`[context]
placement = "system"
[context.regions]
todos   = { kind = "checklist" }
scratch = { kind = "temporary", placement = "tail" }
`);
    expect(got).toMatchObject({ todos: 'system', scratch: 'tail', tool_results: 'system' });
  });

  it('is a pure function of the definition that the renderer and lev validate share', () => {
    const def = (kind: RegionDef['kind'], volatility: RegionDef['volatility'], name = 'r') => ({
      name,
      kind,
      volatility,
    });
    expect(defaultPlacement(def('temporary', 'rewritten'), 'auto')).toBe('tail');
    expect(defaultPlacement(def('temporary', 'grows'), 'auto')).toBe('system');
    expect(defaultPlacement(def('temporary', 'rewritten'), 'system')).toBe('system');
    expect(defaultPlacement(def('custom', 'rewritten'), 'auto')).toBe('system');
    expect(defaultPlacement(def('pinned', 'rewritten', 'stage_instructions'), 'auto')).toBe('system');
    expect(defaultPlacement(def('sliding_window', 'rewritten'), 'auto')).toBeUndefined();
  });
});

describe('placement findings', () => {
  it('refuses an unknown value, on a region or on [context]', () => {
    expect(codesOf(loadToml('[context.regions]\nr = { placement = "end" }'))).toContain('unknown-placement');
    expect(codesOf(loadToml('[context]\nplacement = "tail"\n[context.regions]\nr = {}'))).toContain(
      'unknown-placement',
    );
  });

  it('warns that a sliding window reads no placement', () => {
    const result = loadToml('[context.regions]\nconversation = { kind = "sliding_window", placement = "tail" }');
    const d = result.diagnostics.find((x) => x.code === 'unknown-region-key');
    expect(d?.message).toMatch(/"placement" on sliding_window region "conversation" has no effect/);
  });

  it('refuses stage_instructions in the tail', () => {
    const result = loadToml('[context.regions]\nstage_instructions = { kind = "pinned", placement = "tail" }');
    const d = result.diagnostics.find((x) => x.code === 'runtime-region-invalid');
    expect(d?.message).toMatch(/always renders in the system section/);
    expect(
      codesOf(loadToml('[context.regions]\nstage_instructions = { kind = "pinned", placement = "system" }')),
    ).toEqual([]);
  });

  it('does not call a rewritten region in the tail early, but does in the system section', () => {
    const early =
      '[context]\nplacement = "system"\n[context.regions]\ntodos = { kind = "checklist", volatility = "stable" }\ncode = { kind = "compacting" }';
    expect(codesOf(loadToml(early))).toContain('rewritten-region-early');
    const tailed =
      '[context.regions]\ntodos = { kind = "checklist", volatility = "stable", placement = "tail" }\ncode = { kind = "compacting" }';
    expect(codesOf(loadToml(tailed))).not.toContain('rewritten-region-early');
    expect(codesOf(loadToml(tailed))).toContain('steady-region-in-tail');
  });

  it('notes a steady region placed in the tail once, however many stages show it', () => {
    const result = loadToml(
      '[context.regions]\nrules = { kind = "pinned", placement = "tail" }\n[stages.a]\n[stages.b]',
    );
    expect(codesOf(result).filter((c) => c === 'steady-region-in-tail')).toHaveLength(1);
  });
});

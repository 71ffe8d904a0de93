/**
 * The pure decisions about tools a run writes (docs/reference/script-tools.md#tools-a-run-writes):
 * what a stage is offered of the scripts found, and whether a call of one runs.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptToolDef } from '../../src/shapes/frozen-blueprint.js';
import { dynamicCall, offeredTools } from '../../src/tools/dynamic-tools.js';

const tool = (name: string, source = `// @tool ${name}\n1`): ScriptToolDef => ({
  name,
  description: `The script tool tools/${name}.rhai.`,
  parameters: { type: 'object', properties: {}, required: [] },
  path: `tools/${name}.rhai`,
  source,
});

describe('offeredTools', () => {
  it('offers the scripts found whose names the stage lists, in the order found', () => {
    const found = [tool('b'), tool('a'), tool('c')];
    expect(offeredTools({ dynamicTools: ['a', 'b'] }, found).map((t) => t.name)).toEqual(['b', 'a']);
  });

  it('offers nothing to a stage that lists no such name, or to no stage', () => {
    expect(offeredTools({}, [tool('a')])).toEqual([]);
    expect(offeredTools(undefined, [tool('a')])).toEqual([]);
  });
});

describe('dynamicCall', () => {
  it('runs the script the turn offered while the folder holds it unchanged', () => {
    expect(dynamicCall('a', tool('a'), tool('a'))).toEqual({ run: tool('a') });
  });

  it('refuses a tool the turn did not offer with dynamic-tool-missing, naming what the folder got wrong', () => {
    const r = dynamicCall('a', undefined, tool('a'), ['tools/a.rhai declares no usable tool: no @tool line.']);
    expect('refused' in r && r.refused).toMatchObject({ isError: true });
    const text = 'refused' in r ? r.refused.content : '';
    expect(text).toMatch(/^\[dynamic-tool-missing\] `a` was not offered on this turn/);
    expect(text).toContain('no @tool line');
    expect(text).toMatch(/call it on a later turn\.$/);
  });

  it('refuses a tool removed or changed since the turn offered it with dynamic-tool-changed', () => {
    const gone = dynamicCall('a', tool('a'), undefined);
    expect('refused' in gone ? gone.refused.content : '').toMatch(
      /^\[dynamic-tool-changed\] `a` was offered on this turn, but no script .* declares it any more.*Write tools\/a.rhai again/,
    );
    const changed = dynamicCall('a', tool('a'), tool('a', '// @tool a\n2'));
    expect('refused' in changed ? changed.refused.content : '').toMatch(
      /^\[dynamic-tool-changed\] `a` changed .* call it on the next turn, which offers the new version\.$/,
    );
    const described = dynamicCall('a', tool('a'), { ...tool('a'), description: 'other' });
    expect('refused' in described).toBe(true);
  });
});

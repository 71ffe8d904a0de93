/** Where each kind's system blocks sort: the order the engine renders and `lev validate` lints. */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { blockClass, systemSortKey } from '../../src/blueprint/block-order.js';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';

const bp = loadBlueprintFromString(
  `[context.regions]
task = { kind = "pinned" }
stage_instructions = { kind = "pinned" }
hist = { kind = "compact_history", source_region = "code" }
code = { kind = "compacting" }
todos = { kind = "checklist" }
scratch = { kind = "temporary" }
notes = { kind = "temporary", volatility = "grows" }
`,
  tmpdir(),
  'agent.toml',
).blueprint!;
const def = (name: string) => bp.regions.find((r) => r.name === name)!;

describe('system block order', () => {
  it('classes: pinned-like 0, stage instructions 1, working 2, rewritten scratch 3', () => {
    expect(
      ['task', 'stage_instructions', 'hist', 'code', 'todos', 'scratch', 'notes'].map((n) => blockClass(def(n))),
    ).toEqual([0, 1, 0, 2, 2, 3, 2]);
  });

  it('sorts stable before growing before rewritten, stage instructions after every pinned block', () => {
    const names = bp.regions.filter((r) => r.kind !== 'sliding_window').map((r) => r.name);
    const sorted = names
      .map((name, order) => ({ name, key: systemSortKey(def(name), order) }))
      .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2])
      .map((b) => b.name);
    expect(sorted.slice(0, 5)).toEqual(['task', 'final_output', 'hist', 'code', 'notes']);
    expect(sorted.indexOf('stage_instructions')).toBeLessThan(sorted.indexOf('scratch'));
    expect(sorted.indexOf('stage_instructions')).toBeGreaterThan(sorted.indexOf('task'));
  });
});

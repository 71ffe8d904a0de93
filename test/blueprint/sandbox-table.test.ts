/** A blueprint's own `[sandbox]` table is built here: it validates clean, unlike the original's unbuilt tables. */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';

describe('[sandbox] in a blueprint', () => {
  it('env validates with no finding and reaches the blueprint', () => {
    const loaded = loadBlueprintFromString(
      '[context.regions]\ntask = { kind = "pinned" }\n[sandbox]\nenv = ["CARGO_HOME"]\n',
      tmpdir(),
      'agent.toml',
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.blueprint?.sandbox?.env).toEqual(['CARGO_HOME']);
  });
});

/** Default volatility per kind, so the system section runs from steady to changing without any setting. */
import { describe, expect, it } from 'vitest';
import { loadToml } from './helpers.js';

describe('default volatility', () => {
  const toml = `[context.regions]
task    = { kind = "pinned" }
todos   = { kind = "checklist" }
code    = { kind = "compacting" }
past    = { kind = "compact_history", source_region = "code" }
facts   = { kind = "hashmap" }
scratch = { kind = "temporary" }
wipe    = { kind = "clearable" }
notes   = { kind = "temporary", volatility = "grows" }
`;

  it('follows how often each kind changes when the blueprint sets none, and yields to a declared one', () => {
    const bp = loadToml(toml).blueprint;
    const of = (name: string) => bp?.regions.find((r) => r.name === name)?.volatility;
    expect(of('task')).toBe('stable');
    expect(of('code')).toBe('grows');
    expect(of('past')).toBe('grows');
    expect(of('facts')).toBe('grows');
    expect(of('todos')).toBe('rewritten');
    expect(of('scratch')).toBe('rewritten');
    expect(of('wipe')).toBe('rewritten');
    expect(of('notes')).toBe('grows');
  });
});

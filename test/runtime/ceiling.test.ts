/**
 * A sub-agent never has more than the runs above it
 * (docs/reference/sub-agents.md#what-a-worker-inherits): its reads outside
 * the workdir, its commands' variables, its command seeds and its tool
 * permissions are the intersection of its own blueprint's and every
 * ancestor's.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../src/runtime/node/run-store.js';
import { seedInputs } from '../../src/runtime/node/seeding.js';
import { runToolCall } from '../../src/runtime/node/tool-call.js';
import { readPolicyUnder, sandboxUnder } from '../../src/runtime/node/tool-context.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { loadToml } from '../blueprint/helpers.js';

const outside = mkdtempSync(join(tmpdir(), 'lev-ceiling-outside-'));
writeFileSync(join(outside, 'notes.txt'), 'outside notes\n');

function env(): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'lev-ceiling-cfg-')), 'config.toml');
  writeFileSync(file, `[security]\nread_paths = ["${outside}"]\n[sandbox]\nenv = ["SHARED"]\n`);
  return { LEVIATH_CONFIG: file, PATH: process.env.PATH };
}

function bp(toml: string): Blueprint {
  const loaded = loadToml(toml);
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

const WIDE = bp(`[read_paths]
allow = ["${outside}"]
[sandbox]
env = ["EXTRA"]
[tool_permissions]
write_file = "allow"
[stages.main]
`);
const NARROW = bp(`[security]
allow_seed_commands = false
[tool_permissions]
write_file = "deny"
[stages.split]
`);

describe('the ceiling of a sub-agent', () => {
  it('reads outside the workdir only where every ancestor may too', () => {
    const workdir = mkdtempSync(join(tmpdir(), 'lev-ceiling-work-'));
    const e = env();
    const own = readPolicyUnder(WIDE, workdir, e, []);
    expect(own.allows(join(outside, 'notes.txt'))).toBe(true);
    const under = readPolicyUnder(WIDE, workdir, e, [{ bp: NARROW, stage: 'split' }]);
    expect(under.allows(join(outside, 'notes.txt'))).toBe(false);
    expect(under.roots).toEqual([]);
    expect(readPolicyUnder(WIDE, workdir, e, [{ bp: WIDE, stage: 'main' }]).roots).toEqual(own.roots);
  });

  it("shows its commands only the variables every ancestor's commands see, and runs command seeds only if all allow them", () => {
    const e = env();
    const reads = readPolicyUnder(WIDE, '/tmp', e, []);
    expect([...sandboxUnder(WIDE, reads, e, []).env].sort()).toEqual(['EXTRA', 'SHARED']);
    expect(sandboxUnder(WIDE, reads, e, [{ bp: NARROW, stage: 'split' }]).env).toEqual(['SHARED']);
    const req = { caller: {}, workdir: '/tmp', noSeedCommands: false };
    expect(seedInputs(WIDE, req, e).allowSeedCommands).toBe(true);
    const seeded = seedInputs(WIDE, req, e, [{ bp: NARROW, stage: 'split' }], 'main');
    expect(seeded.allowSeedCommands).toBe(false);
    expect(seeded.ceilings).toEqual([{ permissions: { tools: { write_file: 'deny' } }, safeCommands: [] }]);
  });

  it('refuses a tool call any ancestor denies, even when its own blueprint allows it', async () => {
    const store = new RunStore({ blobDir: mkdtempSync(join(tmpdir(), 'lev-ceiling-blobs-')), env: env() });
    const child = await store.putBlueprint(WIDE);
    const parent = await store.putBlueprint(NARROW);
    const workdir = mkdtempSync(join(tmpdir(), 'lev-ceiling-work-'));
    mkdirSync(join(workdir, 'out'));
    const call = { id: 'c1', name: 'write_file', arguments: { path: 'out/a.txt', content: 'a' } };
    const base = { runId: 'r/1', blueprintHash: child, stage: 'main', workdir, unattended: true, call };
    const refused = await runToolCall(store, { ...base, ceiling: [{ blueprintHash: parent, stage: 'split' }] }, 1);
    expect(refused.content).toMatch(/^\[permission-denied\] /);
    expect(existsSync(join(workdir, 'out/a.txt'))).toBe(false);
    expect((await runToolCall(store, base, 1)).isError).toBe(false);
  });
});

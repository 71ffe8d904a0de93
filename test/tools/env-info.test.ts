/**
 * The environment tools of the original Leviath (docs/tools.md#environment):
 * what they report, that a stage listing them is offered them, and that a
 * tool seed calling them fills its region.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { seedInputs } from '../../src/runtime/node/seeding.js';
import { resolveSeed } from '../../src/seeds/index.js';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { describeLocale, osVersionFrom, runFactsFor } from '../../src/tools/env-info.js';
import { LEVIATH_VERSION } from '../../src/version.js';
import { makeSandbox, type Sandbox } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const BLUEPRINT = `[agent]
name = "env-probe"

[context.regions]
environment = { kind = "pinned", max_tokens = 2000, seed = { tools = ["locale_info", "system_info", "runtime_info"] } }

[stages.look]
max_iterations = 4
available_tools = ["system_info", "locale_info", "runtime_info", "read_file"]
`;

function probe() {
  const dir = mkdtempSync(join(tmpdir(), 'lev-env-'));
  writeFileSync(join(dir, 'agent.toml'), BLUEPRINT);
  const r = loadBlueprint(dir, { workdir: dir });
  if (!r.blueprint) throw new Error(JSON.stringify(r.diagnostics));
  return r.blueprint;
}

async function json(name: string, overrides: Parameters<Sandbox['ctx']>[0] = {}) {
  const out = await dispatchTool(name, {}, box.ctx(overrides));
  expect(out.isError, out.content).toBe(false);
  return JSON.parse(out.content);
}

describe('system_info', () => {
  it('reports this machine', async () => {
    const info = await json('system_info');
    expect(info).toMatchObject({
      os: process.platform,
      arch: process.arch,
      cpu_count: availableParallelism(),
      path_separator: ':',
      line_ending: 'lf',
    });
    expect(info.disk.available_bytes).toBeGreaterThan(0);
    expect(info.disk.total_bytes).toBeGreaterThanOrEqual(info.disk.available_bytes);
  });

  it('reads the version from os-release, null when there is none', () => {
    expect(osVersionFrom('NAME="Debian GNU/Linux"\nVERSION_ID="13"\nVERSION="13 (trixie)"\n')).toBe('13');
    expect(osVersionFrom('NAME=Arch\nVERSION="rolling"')).toBe('rolling');
    expect(osVersionFrom(undefined)).toBeNull();
  });
});

describe('locale_info', () => {
  it('gives the BCP-47 tag of LC_ALL, else LC_MESSAGES, else LANG', async () => {
    expect(await json('locale_info', { env: { LANG: 'de_DE.UTF-8', TZ: 'Europe/Berlin' } })).toEqual({
      locale: 'de-DE',
      language: 'de',
      region: 'DE',
      raw: 'de_DE.UTF-8',
      timezone: 'Europe/Berlin',
    });
    expect((await json('locale_info', { env: { LANG: 'de_DE.UTF-8', LC_ALL: 'fr_CA' } })).locale).toBe('fr-CA');
  });

  it('says no locale for C and POSIX, keeping the raw tag', () => {
    expect(describeLocale('C.UTF-8')).toEqual({ locale: null, language: null, region: null, raw: 'C.UTF-8' });
    expect(describeLocale('POSIX').locale).toBeNull();
    expect(describeLocale(undefined).raw).toBeNull();
    expect(describeLocale('pt-br').locale).toBe('pt-BR');
  });
});

describe('runtime_info', () => {
  it('tells an unattended run that nobody will answer, and names its stage, model and tools', async () => {
    const bp = probe();
    const run = runFactsFor(bp, 'look', {
      model: 'google:gemini-3.5-flash',
      tools: ['system_info', 'read_file'],
      workdir: box.work,
      unattended: true,
      runId: 'run-7',
    });
    const info = await json('runtime_info', { run });
    expect(info).toMatchObject({
      leviath_version: LEVIATH_VERSION,
      run_id: 'run-7',
      agent: 'env-probe',
      working_directory: box.work,
      stage: { name: 'look', index: 0, of: 1, max_iterations: 4 },
      provider: 'google',
      model: 'gemini-3.5-flash',
      available_tools: ['system_info', 'read_file'],
      unattended: true,
    });
    expect(info.interaction).toMatch(/unattended: nobody will answer/);
    const attended = await json('runtime_info', { run: { ...run, unattended: false } });
    expect(attended.interaction).toMatch(/A person is available/);
  });
});

describe('a blueprint that names them', () => {
  it('validates, and its stage is offered them', () => {
    expect(probe().stages[0]?.availableTools).toEqual(['system_info', 'locale_info', 'runtime_info', 'read_file']);
  });

  it('seeds a region by calling them at spawn', async () => {
    const bp = probe();
    const inputs = seedInputs(bp, { caller: {}, workdir: box.work, noSeedCommands: false }, { LANG: 'en_GB.UTF-8' });
    const region = bp.regions.find((r) => r.name === 'environment');
    if (!region) throw new Error('no environment region');
    const seeded = await resolveSeed(region, inputs);
    expect(seeded.texts.map((t) => t.key)).toEqual(['locale_info', 'system_info', 'runtime_info']);
    const runtime = JSON.parse(seeded.texts[2]?.text ?? '{}');
    expect(runtime).toMatchObject({ agent: 'env-probe', stage: { name: 'look' }, unattended: null });
    expect(runtime.interaction).toMatch(/not known while the context is seeded/);
  });
});

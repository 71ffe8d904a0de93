/**
 * Installed agents (docs/reference/installed-agents.md): `lev add` copies a
 * blueprint directory under the agents directory, a bare `worker_agent` and
 * `lev run <name>` find it there, `lev remove` deletes it.
 */
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import {
  addAgent,
  installedAgent,
  listInstalled,
  removeAgent,
  resolveBlueprintArg,
} from '../../src/cli/installed-agents.js';
import { isLevError } from '../../src/errors.js';
import { codesOf, errorsOf } from '../blueprint/helpers.js';
import { lev } from './lev-in-process.js';

const ORIGINAL = 'test/fixtures/leviath-rs/agents';

function home(): NodeJS.ProcessEnv {
  return { LEVIATH_AGENTS_DIR: mkdtempSync(join(tmpdir(), 'lev-agents-')) };
}

/** The original's deep-researcher alone in a directory: its worker "researcher" is no sibling there. */
function loneDeepResearcher(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'lev-alone-')), 'deep-researcher');
  cpSync(join(ORIGINAL, 'deep-researcher'), dir, { recursive: true });
  return dir;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    if (isLevError(err)) return err.code;
    throw err;
  }
  return undefined;
}

describe('an agent named by worker_agent', () => {
  it('is worker-agent-unknown when it is neither a sibling nor installed', () => {
    const env = home();
    const dir = loneDeepResearcher();
    const r = loadBlueprint(dir, { workdir: dir, agentsDir: env.LEVIATH_AGENTS_DIR });
    expect(codesOf(r)).toContain('worker-agent-unknown');
    expect(r.diagnostics.find((d) => d.code === 'worker-agent-unknown')?.message).toMatch(/lev add/);
  });

  it('resolves to the installed agent of that name once `lev add` installed it', () => {
    const env = home();
    const added = addAgent(join(ORIGINAL, 'researcher'), {}, env);
    expect(added).toMatchObject({ name: 'researcher', replaced: false });
    const dir = loneDeepResearcher();
    const r = loadBlueprint(dir, { workdir: dir, agentsDir: env.LEVIATH_AGENTS_DIR });
    expect(errorsOf(r)).toEqual([]);
    expect(Object.values(r.blueprint?.agents ?? {}).map((a) => a.agent.name)).toEqual(['researcher']);
    expect(r.blueprint?.agentRefs?.researcher).toBe(join(added.dir, 'agent.leviath'));
  });

  it('prefers a sibling directory of that name over an installed one', () => {
    const env = home();
    addAgent(join(ORIGINAL, 'researcher'), {}, env);
    const dir = join(ORIGINAL, 'deep-researcher');
    const r = loadBlueprint(dir, { workdir: dir, agentsDir: env.LEVIATH_AGENTS_DIR });
    expect(r.blueprint?.agentRefs?.researcher).toBe(join(process.cwd(), ORIGINAL, 'researcher', 'agent.leviath'));
  });
});

describe('add, list, remove', () => {
  it('installs under the [agent] name or --name, lists, and removes', () => {
    const env = home();
    addAgent(join(ORIGINAL, 'reviewer'), {}, env);
    addAgent('test/fixtures/original/triage', { name: 'triage-2' }, env);
    expect(listInstalled(env).map((a) => [a.name, a.version])).toEqual([
      ['reviewer', expect.any(String)],
      ['triage-2', '0.1.0'],
    ]);
    expect(existsSync(join(installedAgent('triage-2', env) ?? '', 'tools', 'lookup_owner.rhai'))).toBe(true);
    expect(resolveBlueprintArg('reviewer', env)).toBe(installedAgent('reviewer', env));
    expect(resolveBlueprintArg(ORIGINAL, env)).toBe(ORIGINAL);
    removeAgent('reviewer', env);
    expect(listInstalled(env).map((a) => a.name)).toEqual(['triage-2']);
  });

  it('refuses a taken name without --force, a bad name, an invalid blueprint and an unknown agent', () => {
    const env = home();
    addAgent(join(ORIGINAL, 'reviewer'), {}, env);
    expect(codeOf(() => addAgent(join(ORIGINAL, 'reviewer'), {}, env))).toBe('agent-exists');
    expect(addAgent(join(ORIGINAL, 'reviewer'), { force: true }, env).replaced).toBe(true);
    expect(codeOf(() => addAgent(join(ORIGINAL, 'reviewer'), { name: '../up' }, env))).toBe('bad-agent-name');
    const broken = mkdtempSync(join(tmpdir(), 'lev-broken-'));
    writeFileSync(join(broken, 'agent.toml'), '[context.regions]\nnotes = { budget = "35" }\n');
    expect(codeOf(() => addAgent(broken, {}, env))).toBe('blueprint-invalid');
    expect(codeOf(() => addAgent(join(tmpdir(), 'no-such-dir'), {}, env))).toBe('blueprint-invalid');
    expect(codeOf(() => removeAgent('nobody', env))).toBe('agent-not-installed');
  });
});

describe('the lev commands', () => {
  const run = (env: NodeJS.ProcessEnv, ...args: string[]) =>
    lev(args, { env: { ...env, LEVIATH_CONFIG: join(tmpdir(), 'lev-no-config.toml') } }).then((r) => ({
      code: r.code,
      out: r.stdout,
      err: r.stderr,
    }));

  it('add, list, validate by name and remove', async () => {
    const env = home();
    expect((await run(env, 'list')).out).toMatch(/no agents installed/);
    const added = await run(env, 'add', join(ORIGINAL, 'researcher'));
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^installed researcher in /);
    expect((await run(env, 'list')).out).toMatch(/^researcher {2}\S/m);
    expect(JSON.parse((await run(env, 'list', '--json')).out)).toMatchObject([{ name: 'researcher' }]);
    const validated = await run(env, 'validate', 'researcher');
    expect(validated.code).toBe(0);
    expect(validated.out).toMatch(/researcher\/agent\.leviath: ok/);
    const again = await run(env, 'add', join(ORIGINAL, 'researcher'));
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/error \[agent-exists\]/);
    expect((await run(env, 'remove', 'researcher')).out).toMatch(/^removed researcher/);
    expect((await run(env, 'remove', 'researcher')).err).toMatch(/error \[agent-not-installed\]/);
  });
});

/**
 * `lev` as a user starts it, in a child process with no LEVIATH_HOME: state
 * goes to the XDG data folder and the config is read from the XDG config
 * folder; an old `.leviath/` holding state in the current folder is used
 * instead, with the one-line notice (docs/reference/operating.md#where-leviath-keeps-its-files).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_OFF_WARNING } from '../../src/tools/sandbox.js';
import { withoutProviderKeys } from '../cli/lev-in-process.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DEMO = join(ROOT, 'blueprints', 'demo');

/** `lev <args>` in `cwd` with the XDG folders under `scratch` and no LEVIATH_HOME. */
function lev(args: string[], cwd: string, scratch: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...withoutProviderKeys(),
    LEVIATH_HOME: undefined,
    LEVIATH_CONFIG: undefined,
    LEVIATH_AGENTS_DIR: undefined,
    LEVIATH_CODEC_KEY_FILE: undefined,
    LEVIATH_METRICS_ADDRESS: undefined,
    HOME: join(scratch, 'home'),
    XDG_DATA_HOME: join(scratch, 'xdg-data'),
    XDG_CONFIG_HOME: join(scratch, 'xdg-config'),
    TEMPORAL_CLI: process.execPath,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return spawnSync(process.execPath, [join(ROOT, 'bin', 'lev.mjs'), ...args], { cwd, env, encoding: 'utf8' });
}

function folders() {
  const scratch = mkdtempSync(join(tmpdir(), 'lev-state-'));
  const cwd = join(scratch, 'work');
  mkdirSync(cwd);
  return { scratch, cwd };
}

type Row = { name: string; ok: boolean; detail: string };

describe('state in the user folders', () => {
  it('reads the config from XDG_CONFIG_HOME and writes state under XDG_DATA_HOME, nowhere else', () => {
    const { scratch, cwd } = folders();
    const configDir = join(scratch, 'xdg-config', 'leviath');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'config.toml'), '[sandbox]\nkind = "none"\n');

    const doctor = lev(['doctor', '--no-server', '--json'], cwd, scratch);
    const rows = JSON.parse(doctor.stdout).checks as Row[];
    const row = (name: string) => rows.find((c) => c.name === name);
    expect(row('config')?.detail).toBe(`${join(configDir, 'config.toml')} parses (or is absent)`);
    expect(row('sandbox')?.detail).toBe(SANDBOX_OFF_WARNING);
    expect(row('state')).toMatchObject({ ok: true });
    expect(row('state')?.detail).toContain(`data ${join(scratch, 'xdg-data', 'leviath')} (XDG_DATA_HOME`);

    const add = lev(['add', DEMO], cwd, scratch);
    expect(add.stderr).toBe('');
    expect(add.status).toBe(0);
    const agents = join(scratch, 'xdg-data', 'leviath', 'agents');
    expect(existsSync(agents)).toBe(true);
    expect(existsSync(join(cwd, '.leviath'))).toBe(false);
    expect(existsSync(join(scratch, 'home', '.local'))).toBe(false);
  });

  it('uses an old .leviath/ in the current folder whole, saying so on one line, and leaves the XDG folder alone', () => {
    const { scratch, cwd } = folders();
    const old = join(cwd, '.leviath');
    mkdirSync(join(old, 'blobs'), { recursive: true });

    const add = lev(['add', DEMO], cwd, scratch);
    expect(add.status).toBe(0);
    expect(add.stderr.split('\n')[0]).toBe(
      `lev: using the state in ${old} (the old location); move it to ${join(scratch, 'xdg-data', 'leviath')} ` +
        `(mkdir -p ${join(scratch, 'xdg-data')} && mv ${old} ${join(scratch, 'xdg-data', 'leviath')}) ` +
        `or set LEVIATH_HOME=${old} to keep it there.`,
    );
    expect(existsSync(join(old, 'agents'))).toBe(true);
    expect(existsSync(join(scratch, 'xdg-data'))).toBe(false);
  });
});

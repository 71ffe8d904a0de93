/**
 * `lev` as a user starts it, in a child process with no LEVIATH_HOME: state
 * goes to the XDG data folder and the config is read from the XDG config
 * folder; an old `.leviath/` holding state, in the checkout or in the current
 * folder, is used instead, with the one-line notice
 * (docs/reference/operating.md#where-leviath-keeps-its-files). `lev` runs from
 * a checkout of links to this one's files, its `.leviath/` aside, so neither
 * what this checkout's own `.leviath/` holds nor what tests write there
 * changes the answer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEGACY_FOLDER } from '../../src/state/locations.js';
import { SANDBOX_OFF_WARNING } from '../../src/tools/sandbox.js';
import { withoutProviderKeys } from '../cli/lev-in-process.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DEMO = join(ROOT, 'blueprints', 'demo');

interface Folders {
  scratch: string;
  /** A checkout of links to this one's files, without its `.leviath/`. */
  checkout: string;
  /** The current folder of the `lev` started. */
  cwd: string;
}

function folders(): Folders {
  const scratch = mkdtempSync(join(tmpdir(), 'lev-state-'));
  const checkout = join(scratch, 'pkg');
  mkdirSync(checkout);
  for (const name of readdirSync(ROOT)) if (name !== LEGACY_FOLDER) symlinkSync(join(ROOT, name), join(checkout, name));
  const cwd = join(scratch, 'work');
  mkdirSync(cwd);
  return { scratch, checkout, cwd };
}

/**
 * `lev <args>` of the linked checkout, with the XDG folders in the scratch folder and no
 * LEVIATH_HOME; Node keeps the links' paths, so the checkout `lev` sees is the linked one.
 */
function lev(args: string[], at: Folders) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...withoutProviderKeys(),
    LEVIATH_HOME: undefined,
    LEVIATH_CONFIG: undefined,
    LEVIATH_AGENTS_DIR: undefined,
    LEVIATH_CODEC_KEY_FILE: undefined,
    LEVIATH_METRICS_ADDRESS: undefined,
    HOME: join(at.scratch, 'home'),
    XDG_DATA_HOME: join(at.scratch, 'xdg-data'),
    XDG_CONFIG_HOME: join(at.scratch, 'xdg-config'),
    TEMPORAL_CLI: process.execPath,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const flags = ['--preserve-symlinks', '--preserve-symlinks-main'];
  return spawnSync(process.execPath, [...flags, join(at.checkout, 'bin', 'lev.mjs'), ...args], {
    cwd: at.cwd,
    env,
    encoding: 'utf8',
  });
}

/** The notice for an old folder, with the scratch folder's XDG data folder as where to move it. */
function notice(old: string, scratch: string): string {
  const data = join(scratch, 'xdg-data', 'leviath');
  return (
    `lev: using the state in ${old} (the old location); move it to ${data} ` +
    `(mkdir -p ${join(scratch, 'xdg-data')} && mv ${old} ${data}) or set LEVIATH_HOME=${old} to keep it there.`
  );
}

type Row = { name: string; ok: boolean; detail: string };

// Each test starts `lev` several times, which takes longer than a unit test's 20 s on a loaded machine.
describe('state in the user folders', { timeout: 120_000 }, () => {
  it('reads the config from XDG_CONFIG_HOME and writes state under XDG_DATA_HOME, nowhere else', () => {
    const at = folders();
    const configDir = join(at.scratch, 'xdg-config', 'leviath');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'config.toml'), '[sandbox]\nkind = "none"\n');

    const doctor = lev(['doctor', '--no-server', '--json'], at);
    const rows = JSON.parse(doctor.stdout).checks as Row[];
    const row = (name: string) => rows.find((c) => c.name === name);
    expect(row('config')?.detail).toBe(`${join(configDir, 'config.toml')} parses (or is absent)`);
    expect(row('sandbox')?.detail).toBe(SANDBOX_OFF_WARNING);
    expect(row('state')).toMatchObject({ ok: true });
    expect(row('state')?.detail).toContain(`data ${join(at.scratch, 'xdg-data', 'leviath')} (XDG_DATA_HOME`);

    const add = lev(['add', DEMO], at);
    expect(add.stderr).not.toMatch(/^lev: using the state/m);
    expect(add.status).toBe(0);
    expect(readdirSync(join(at.scratch, 'xdg-data', 'leviath', 'agents'))).toEqual(['demo']);
    const elsewhere = [join(at.cwd, LEGACY_FOLDER), join(at.checkout, LEGACY_FOLDER), join(at.scratch, 'home')];
    for (const folder of elsewhere) expect(existsSync(folder), folder).toBe(false);
  });

  it('uses an old .leviath/ holding state in the checkout whole, says so on one line, and leaves the XDG folder alone', () => {
    const at = folders();
    const old = join(at.checkout, LEGACY_FOLDER);
    mkdirSync(join(old, 'data'), { recursive: true });
    const add = lev(['add', DEMO], at);
    expect(add.status).toBe(0);
    expect(add.stderr.split('\n')).toContain(notice(old, at.scratch));
    expect(readdirSync(join(old, 'agents'))).toEqual(['demo']);
    expect(existsSync(join(at.scratch, 'xdg-data'))).toBe(false);
  });

  it('uses an old .leviath/ holding state in the current folder the same way', () => {
    const at = folders();
    const old = join(at.cwd, LEGACY_FOLDER);
    mkdirSync(join(old, 'blobs'), { recursive: true });
    const add = lev(['add', DEMO], at);
    expect(add.status).toBe(0);
    expect(add.stderr.split('\n')).toContain(notice(old, at.scratch));
    expect(readdirSync(join(old, 'agents'))).toEqual(['demo']);
    expect(existsSync(join(at.scratch, 'xdg-data'))).toBe(false);
  });
});

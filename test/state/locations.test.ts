import { describe, expect, it } from 'vitest';
import {
  DATA_FOLDERS,
  embeddedServerFiles,
  LEGACY_FOLDER,
  resolveStateDirs,
  type Surroundings,
  userConfigPath,
} from '../../src/state/locations.js';
import { userDirs } from '../../src/state/user-dirs.mjs';

/** Surroundings where only the listed paths exist. */
function at(existing: string[] = [], cwd = '/work/project'): Surroundings {
  const set = new Set(existing);
  return { home: '/home/u', cwd, checkout: '/opt/leviath', exists: (path) => set.has(path) };
}

describe('the user folders', () => {
  it('are the XDG defaults under the home folder when nothing is set', () => {
    expect(userDirs({}, '/home/u')).toEqual({
      data: '/home/u/.local/share/leviath',
      config: '/home/u/.config/leviath',
      cache: '/home/u/.cache/leviath',
    });
  });

  it('follow XDG_DATA_HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME, ignoring relative or blank ones as the spec says', () => {
    const env = { XDG_DATA_HOME: '/d', XDG_CONFIG_HOME: '/c', XDG_CACHE_HOME: '/k' };
    expect(userDirs(env, '/home/u')).toEqual({ data: '/d/leviath', config: '/c/leviath', cache: '/k/leviath' });
    expect(userDirs({ XDG_DATA_HOME: 'rel/ative', XDG_CONFIG_HOME: ' ' }, '/home/u')).toMatchObject({
      data: '/home/u/.local/share/leviath',
      config: '/home/u/.config/leviath',
    });
  });

  it('are both LEVIATH_HOME when it is set, while the cache stays shared', () => {
    const env = { LEVIATH_HOME: '/srv/lev', XDG_DATA_HOME: '/d', XDG_CACHE_HOME: '/k' };
    expect(userDirs(env, '/home/u')).toEqual({ data: '/srv/lev', config: '/srv/lev', cache: '/k/leviath' });
  });

  it("take the home folder from the environment's HOME", () => {
    expect(userDirs({ HOME: '/home/v' }).data).toBe('/home/v/.local/share/leviath');
  });
});

describe('where state is kept', () => {
  it('is the XDG data folder, with config.toml in the XDG config folder, when no old .leviath/ holds state', () => {
    const dirs = resolveStateDirs({ XDG_DATA_HOME: '/d' }, at());
    expect(dirs).toEqual({
      data: '/d/leviath',
      configFile: '/home/u/.config/leviath/config.toml',
      cache: '/home/u/.cache/leviath',
      source: 'XDG',
      notices: [],
    });
  });

  it('is LEVIATH_HOME, with its config.toml, before any old .leviath/, and without a notice', () => {
    const dirs = resolveStateDirs({ LEVIATH_HOME: '/srv/lev' }, at(['/work/project/.leviath/data']));
    expect(dirs).toEqual({
      data: '/srv/lev',
      configFile: '/srv/lev/config.toml',
      cache: '/home/u/.cache/leviath',
      source: 'LEVIATH_HOME',
      notices: [],
    });
  });

  it('reads the config from LEVIATH_CONFIG whatever else is set', () => {
    expect(resolveStateDirs({ LEVIATH_CONFIG: '/etc/lev.toml', LEVIATH_HOME: '/srv' }, at()).configFile).toBe(
      '/etc/lev.toml',
    );
    expect(userConfigPath({ LEVIATH_CONFIG: '/etc/lev.toml', HOME: '/home/u' })).toBe('/etc/lev.toml');
    expect(userConfigPath({ HOME: '/home/u' })).toBe('/home/u/.config/leviath/config.toml');
    expect(userConfigPath({ HOME: '/home/u', XDG_CONFIG_HOME: '/c' })).toBe('/c/leviath/config.toml');
  });

  it("uses an old .leviath/ holding state whole, the current folder's before the checkout's, and says how to move it", () => {
    const both = ['/work/project/.leviath/blobs', '/opt/leviath/.leviath/data'];
    const dirs = resolveStateDirs({}, at(both));
    expect(dirs.source).toBe('legacy');
    expect(dirs.data).toBe('/work/project/.leviath');
    expect(dirs.configFile).toBe('/home/u/.config/leviath/config.toml');
    expect(dirs.notices).toEqual([
      'lev: using the state in /work/project/.leviath (the old location); move it to /home/u/.local/share/leviath ' +
        '(mkdir -p /home/u/.local/share && mv /work/project/.leviath /home/u/.local/share/leviath) ' +
        'or set LEVIATH_HOME=/work/project/.leviath to keep it there.',
    ]);
    expect(resolveStateDirs({}, at(both.slice(1))).data).toBe('/opt/leviath/.leviath');
    expect(resolveStateDirs({}, at(both.slice(1))).notices[0]).toContain('LEVIATH_HOME=/opt/leviath/.leviath');
  });

  it('reads the old ~/.config/leviath/config.toml, with a notice, when XDG_CONFIG_HOME moved the folder and it has none', () => {
    const old = '/home/u/.config/leviath/config.toml';
    const moved = { XDG_CONFIG_HOME: '/c' };
    expect(resolveStateDirs(moved, at([old]))).toMatchObject({
      configFile: old,
      notices: [
        `lev: reading the config from ${old} (the old location); move it to /c/leviath/config.toml ` +
          `(mkdir -p /c/leviath && mv ${old} /c/leviath/config.toml).`,
      ],
    });
    expect(resolveStateDirs(moved, at([old, '/c/leviath/config.toml']))).toMatchObject({
      configFile: '/c/leviath/config.toml',
      notices: [],
    });
    expect(resolveStateDirs(moved, at())).toMatchObject({ configFile: '/c/leviath/config.toml', notices: [] });
    expect(resolveStateDirs({ ...moved, LEVIATH_HOME: '/srv' }, at([old])).configFile).toBe('/srv/config.toml');
    expect(resolveStateDirs({ ...moved, LEVIATH_CONFIG: '/etc/l.toml' }, at([old])).configFile).toBe('/etc/l.toml');
  });

  it('counts every data subfolder as state, and nothing else a .leviath/ may hold', () => {
    for (const name of Object.values(DATA_FOLDERS))
      expect(resolveStateDirs({}, at([`/opt/leviath/${LEGACY_FOLDER}/${name}`])).source).toBe('legacy');
    const notState = ['workdir-id', 'tools', 'screenshots', 'test-home', '.gitignore'].map(
      (name) => `/work/project/.leviath/${name}`,
    );
    expect(resolveStateDirs({}, at(['/work/project/.leviath', ...notState])).source).toBe('XDG');
  });

  it('looks in one folder once when the current folder is the checkout', () => {
    const looked: string[] = [];
    const exists = (path: string) => {
      looked.push(path);
      return false;
    };
    resolveStateDirs({}, { ...at([], '/opt/leviath'), exists });
    expect(looked.filter((p) => p.endsWith('/data'))).toEqual(['/opt/leviath/.leviath/data']);
  });

  it("puts the embedded server's database and log in the data folder's data/", () => {
    expect(embeddedServerFiles({ LEVIATH_HOME: '/srv/lev' })).toEqual({
      database: '/srv/lev/data/temporal.sqlite',
      log: '/srv/lev/data/temporal.log',
    });
  });
});

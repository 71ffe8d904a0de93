/**
 * Where Leviath keeps what it writes and reads outside a workdir: the data
 * folder (one subfolder per kind of state), the user config, and the cache
 * of fetched tools (docs/reference/operating.md#where-leviath-keeps-its-files).
 * Every caller asks here; the folders' bases come from ./user-dirs.mjs,
 * which the plain-JavaScript scripts share.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PROJECT_ROOT } from './project-root.js';
import { homeOf, userDirs } from './user-dirs.mjs';

/** The data folder's subfolders, by what each holds. */
export const DATA_FOLDERS = {
  /** The embedded Temporal server's SQLite database and its log. */
  server: 'data',
  /** The local blob store (unless `LEVIATH_BLOB_DIR` or `[runtime] blobs` says otherwise). */
  blobs: 'blobs',
  /** `lev push`'s store (unless `LEVIATH_BLUEPRINT_DIR`). */
  blueprints: 'blueprints',
  /** `lev add`'s installed agents (unless `LEVIATH_AGENTS_DIR`). */
  agents: 'agents',
  /** The output of a run followed in the background. */
  logs: 'logs',
  /** Documents written out for a person to edit. */
  edits: 'edits',
} as const;

export type DataFolder = keyof typeof DATA_FOLDERS;

/** Where earlier versions kept their data: `.leviath/` in the checkout (or the installed package), or the current folder. */
export const LEGACY_FOLDER = '.leviath';

export interface StateDirs {
  /** The data folder: the root of DATA_FOLDERS. */
  data: string;
  /** The user config file. */
  configFile: string;
  /** Tools fetched or built again on demand (the Temporal CLI). */
  cache: string;
  /** Why the data folder is where it is. */
  source: 'LEVIATH_HOME' | 'legacy' | 'XDG';
  /** A line for each thing found in an old place (state, config): where it is and how to move it. */
  notices: string[];
}

/** What the answer depends on besides the environment. */
export interface Surroundings {
  home: string;
  cwd: string;
  /** The checkout or the installed package (PROJECT_ROOT). */
  checkout: string;
  exists: (path: string) => boolean;
}

/**
 * A `.leviath/` holds state when it has one of the data subfolders; one with
 * only a workdir id (a workdir's own `.leviath/`), fetched tools or test
 * screenshots holds nothing a user would lose.
 */
function holdsState(dir: string, exists: (path: string) => boolean): boolean {
  return Object.values(DATA_FOLDERS).some((name) => exists(join(dir, name)));
}

/**
 * The folders, by this precedence: `LEVIATH_HOME` (data and config in it);
 * else an old `.leviath/` holding state, the current folder's before the
 * checkout's, used whole with a notice so nothing is lost and two places are
 * never mixed; else the XDG folders. `LEVIATH_CONFIG` names the config file
 * whatever else is set.
 */
export function resolveStateDirs(env: NodeJS.ProcessEnv, at: Surroundings): StateDirs {
  const dirs = userDirs(env, at.home);
  const config = resolveConfigFile(env, at.home, at.exists);
  const base = { configFile: config.file, cache: dirs.cache };
  const configNotices = config.notice ? [config.notice] : [];
  if (env.LEVIATH_HOME?.trim()) return { ...base, data: dirs.data, source: 'LEVIATH_HOME', notices: configNotices };
  const legacy = [...new Set([at.cwd, at.checkout].map((dir) => join(resolve(dir), LEGACY_FOLDER)))].find((dir) =>
    holdsState(dir, at.exists),
  );
  if (!legacy) return { ...base, data: dirs.data, source: 'XDG', notices: configNotices };
  return { ...base, data: legacy, source: 'legacy', notices: [legacyNotice(legacy, dirs.data), ...configNotices] };
}

/**
 * The config file: `$LEVIATH_CONFIG`, else config.toml in the config folder. Earlier versions
 * read `~/.config/leviath/config.toml` whatever `XDG_CONFIG_HOME` said; when that variable
 * moves the folder, and the file is there but not in the new folder, it is still read, with a notice.
 */
export function resolveConfigFile(
  env: NodeJS.ProcessEnv,
  home: string,
  exists: (path: string) => boolean,
): { file: string; notice?: string } {
  const explicit = env.LEVIATH_CONFIG?.trim();
  if (explicit) return { file: explicit };
  const file = join(userDirs(env, home).config, 'config.toml');
  const old = join(home, '.config', 'leviath', 'config.toml');
  if (env.LEVIATH_HOME?.trim() || old === file || exists(file) || !exists(old)) return { file };
  return {
    file: old,
    notice: `lev: reading the config from ${old} (the old location); move it to ${file} (mkdir -p ${dirname(file)} && mv ${old} ${file}).`,
  };
}

/** The notice for state found in the old place: where it is, and both ways to settle it. */
function legacyNotice(legacy: string, data: string): string {
  return (
    `lev: using the state in ${legacy} (the old location); move it to ${data} ` +
    `(mkdir -p ${dirname(data)} && mv ${legacy} ${data}) or set LEVIATH_HOME=${legacy} to keep it there.`
  );
}

/** The folders for this process: its environment, home folder, current folder and checkout. */
export function stateDirs(env: NodeJS.ProcessEnv = process.env): StateDirs {
  return resolveStateDirs(env, {
    home: homeOf(env),
    cwd: process.cwd(),
    checkout: PROJECT_ROOT,
    exists: existsSync,
  });
}

/** One subfolder of the data folder. */
export function dataPath(folder: DataFolder, env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirs(env).data, DATA_FOLDERS[folder]);
}

/** The embedded server's SQLite database and its log, in the data folder's `data/`. */
export function embeddedServerFiles(env: NodeJS.ProcessEnv = process.env): { database: string; log: string } {
  const dir = dataPath('server', env);
  return { database: join(dir, 'temporal.sqlite'), log: join(dir, 'temporal.log') };
}

/** The user config file (resolveConfigFile). */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return resolveConfigFile(env, homeOf(env), existsSync).file;
}

/**
 * The script tools every blueprint may grant (the original's `~/.leviath/tools/`): `tools/` of the
 * config folder, since they are the user's own code like config.toml, not what runs leave behind.
 */
export function globalToolsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userDirs(env, homeOf(env)).config, 'tools');
}

/**
 * The script providers a stage may name (the original's `~/.leviath/providers/`): `providers/` of
 * the config folder, beside the global tools folder and for the same reason.
 */
export function globalProvidersDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userDirs(env, homeOf(env)).config, 'providers');
}

/** The cache of fetched tools. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return userDirs(env).cache;
}

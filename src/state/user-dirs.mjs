// The three folders Leviath keeps things in, from the environment and the
// home folder alone. Plain JavaScript so that `scripts/*.mjs`, which run
// before anything is compiled, find the same cache as the TypeScript code
// (src/state/locations.ts builds the rest of the layout on these), with no
// second copy of the rule. The layout is documented in
// docs/reference/operating.md#where-leviath-keeps-its-files.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * `$HOME` when the environment has one (a test's injected one), else the account's.
 *
 * @param {Record<string, string | undefined>} env
 */
export function homeOf(env) {
  return env.HOME?.trim() || homedir();
}

/** An XDG variable's folder: the XDG spec has relative (and empty) values ignored. */
function xdg(value) {
  const trimmed = value?.trim();
  return trimmed && isAbsolute(trimmed) ? trimmed : undefined;
}

/**
 * `data`: what runs leave behind (server database, blobs, pushed blueprints, installed
 * agents, logs, edits): `$LEVIATH_HOME`, else `${XDG_DATA_HOME:-~/.local/share}/leviath`.
 * `config`: the folder of config.toml: `$LEVIATH_HOME`, else `${XDG_CONFIG_HOME:-~/.config}/leviath`.
 * `cache`: what can be fetched or built again (the Temporal binaries):
 * `${XDG_CACHE_HOME:-~/.cache}/leviath`, whatever `LEVIATH_HOME` says, so homes
 * made per test or per deployment share one download of each version.
 *
 * @param {Record<string, string | undefined>} env
 * @param {string} [home] the user's home folder
 * @returns {{ data: string; config: string; cache: string }}
 */
export function userDirs(env, home = homeOf(env)) {
  const own = env.LEVIATH_HOME?.trim() ? resolve(env.LEVIATH_HOME.trim()) : undefined;
  const under = (variable, fallback) => join(xdg(env[variable]) ?? join(home, fallback), 'leviath');
  return {
    data: own ?? under('XDG_DATA_HOME', join('.local', 'share')),
    config: own ?? under('XDG_CONFIG_HOME', '.config'),
    cache: under('XDG_CACHE_HOME', '.cache'),
  };
}

/** Where the project keeps what it installs and stores locally (ignored by git). */
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root: two levels above this file (`src/devserver/`), or above the compiled build in `dist/`. */
export const PROJECT_ROOT = basename(here) === 'dist' ? dirname(here) : resolve(here, '..', '..');

/** `.leviath/` holds tools, server data and blobs; `LEVIATH_HOME` moves it. */
export function leviathHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.LEVIATH_HOME ? resolve(env.LEVIATH_HOME) : join(PROJECT_ROOT, '.leviath');
}

export function toolsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(leviathHome(env), 'tools');
}

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(leviathHome(env), 'data');
}

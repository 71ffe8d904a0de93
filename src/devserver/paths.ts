/** Where the project keeps what it installs and stores locally (ignored by git). */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: two levels above this file (`src/devserver/`). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

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

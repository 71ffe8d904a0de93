/** Where the checkout (or the installed package) is; what Leviath writes lives elsewhere (./locations.ts). */
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root: two levels above this file (`src/state/`), or above the compiled build in `dist/`. */
export const PROJECT_ROOT = basename(here) === 'dist' ? dirname(here) : resolve(here, '..', '..');

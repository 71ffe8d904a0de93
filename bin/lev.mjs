#!/usr/bin/env node
// Installed from npm (the package root is no git checkout), `lev` runs the
// compiled build in dist/ that `npm pack` made (prepack), and nothing else:
// the sources and the build scripts are not in the package. Inside a checkout
// it runs dist/ when it is a build of today's sources; otherwise it runs the
// TypeScript sources through tsx and says why, so an edit is never run from a
// stale build.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, 'dist', 'lev.mjs');

let main;
if (!existsSync(join(root, '.git'))) {
  if (!existsSync(build)) {
    process.stderr.write(
      `error [build-missing] This leviath package has no compiled build (${build}): reinstall it from the registry (npm i -g leviath), or pack it with npm pack, whose prepack builds dist/.\n`,
    );
    process.exit(1);
  }
  ({ main } = await import('../dist/lev.mjs'));
} else {
  const { buildState } = await import('../scripts/build.mjs');
  const state = buildState();
  if (state.fresh) {
    ({ main } = await import('../dist/lev.mjs'));
  } else {
    if (!process.env.LEVIATH_QUIET_BUILD)
      process.stderr.write(
        `lev: running the TypeScript sources, slower to start: ${state.reason} (npm run build compiles them).\n`,
      );
    // tsx is a devDependency: a checkout has it, an installed package neither has nor needs it.
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../src/cli/main.ts'));
  }
}
process.exitCode = await main(process.argv);

#!/usr/bin/env node
// Runs the compiled build in dist/ (`scripts/build.mjs`) when it is a build of
// today's sources; otherwise runs the TypeScript sources through tsx and says
// why, so an edit is never run from a stale build.
import { buildState } from '../scripts/build.mjs';

const state = buildState();
let main;
if (state.fresh) {
  ({ main } = await import('../dist/lev.mjs'));
} else {
  if (!process.env.LEVIATH_QUIET_BUILD)
    process.stderr.write(
      `lev: running the TypeScript sources, slower to start: ${state.reason} (npm run build compiles them).\n`,
    );
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv);

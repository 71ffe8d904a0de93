/** The compiled build is used only while it is a build of today's sources (scripts/build.mjs). */
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript without declarations, run before anything is compiled.
import { buildState } from '../../scripts/build.mjs';

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'lev-build-'));
  for (const file of [
    'src/cli/main.ts',
    'workflows/index.ts',
    'activities/index.ts',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/build.mjs',
  ]) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
    utimesSync(join(root, file), 1000, 1000);
  }
  mkdirSync(join(root, 'dist'));
  const files = ['activities/index.ts', 'src/cli/main.ts', 'workflows/index.ts'];
  writeFileSync(join(root, 'dist', 'build-stamp.json'), JSON.stringify({ builtAt: 2_000_000, files }));
  return root;
}

describe('buildState', () => {
  it('is fresh for a build of the sources as they are', () => {
    expect(buildState(tree())).toEqual({ fresh: true });
  });

  it('is stale, with the reason, once a source changes after the build', () => {
    const root = tree();
    utimesSync(join(root, 'src/cli/main.ts'), 3000, 3000);
    expect(buildState(root)).toEqual({ fresh: false, reason: 'src/cli/main.ts changed after the build' });
  });

  it('is stale when a source file is added or removed, or there is no build', () => {
    const root = tree();
    writeFileSync(join(root, 'src/cli/new.ts'), '');
    utimesSync(join(root, 'src/cli/new.ts'), 1000, 1000);
    expect(buildState(root)).toMatchObject({ fresh: false, reason: 'source files were added or removed' });
    expect(buildState(mkdtempSync(join(tmpdir(), 'lev-build-')))).toMatchObject({ fresh: false });
  });

  it('counts a plain .mjs source the build bundles (src/state/user-dirs.mjs) like a .ts one', () => {
    const root = tree();
    writeFileSync(join(root, 'src/cli/shared.mjs'), '');
    utimesSync(join(root, 'src/cli/shared.mjs'), 1000, 1000);
    expect(buildState(root)).toMatchObject({ fresh: false, reason: 'source files were added or removed' });
  });

  it('is stale when the dependencies change', () => {
    const root = tree();
    utimesSync(join(root, 'package-lock.json'), 3000, 3000);
    expect(buildState(root)).toMatchObject({ fresh: false, reason: 'package-lock.json changed after the build' });
  });
});

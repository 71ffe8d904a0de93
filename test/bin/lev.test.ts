/**
 * `bin/lev.mjs` where a package is installed (no `.git` at its root): it runs dist/ without
 * looking at sources or build scripts (which the package does not hold), and says in one coded
 * line when dist/ is missing. Inside a checkout, test/scripts/build.test.ts covers the freshness check.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const LEV = join(import.meta.dirname, '..', '..', 'bin', 'lev.mjs');

/** A package root as npm installs it: bin/lev.mjs, and dist/lev.mjs when `withBuild`; no scripts/, no src/. */
function installedRoot(withBuild: boolean): string {
  const root = mkdtempSync(join(tmpdir(), 'lev-installed-'));
  mkdirSync(join(root, 'bin'));
  copyFileSync(LEV, join(root, 'bin', 'lev.mjs'));
  if (withBuild) {
    mkdirSync(join(root, 'dist'));
    writeFileSync(
      join(root, 'dist', 'lev.mjs'),
      'export async function main(argv) { process.stdout.write("dist " + argv.slice(2).join(" ") + "\\n"); return 3; }\n',
    );
  }
  return root;
}

const run = (root: string) =>
  spawnSync(process.execPath, [join(root, 'bin', 'lev.mjs'), 'validate', 'x'], { encoding: 'utf8' });

describe('bin/lev.mjs in an installed package', () => {
  it('runs the compiled build, with no source or build script to compare it with', () => {
    const out = run(installedRoot(true));
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe('dist validate x\n');
    expect(out.status).toBe(3);
  });

  it('stops with build-missing, in one line, when the package has no build', () => {
    const root = installedRoot(false);
    const out = run(root);
    expect(out.stderr).toMatch(/^error \[build-missing\] .*dist\/lev\.mjs.*npm i -g leviath.*\n$/);
    expect(out.stderr.split('\n')).toHaveLength(2);
    expect(out.status).toBe(1);
  });

  it('checks freshness only inside a checkout: with a .git entry it asks scripts/build.mjs', () => {
    const root = installedRoot(true);
    writeFileSync(join(root, '.git'), 'gitdir: elsewhere\n');
    const out = run(root);
    expect(out.stderr).toMatch(/scripts\/build\.mjs/);
    expect(out.status).not.toBe(0);
  });
});

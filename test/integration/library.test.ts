/**
 * docs/library.md's program, taken from the page (so the page cannot drift) and run as a
 * user runs it: `node embed.mjs` in a folder of its own whose `node_modules/leviath` is this
 * package, against the lane's Temporal server, to the demo's end. With a fresh build, `import
 * 'leviath'` goes through the package's `exports` to dist/ (the prebuilt workflow bundle
 * included); with a stale one, as `bin/lev.mjs` does, through tsx to the sources.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: plain JavaScript without declarations, run before anything is compiled.
import { buildState } from '../../scripts/build.mjs';
import { temporalAddress } from './helpers.js';
import { tempDir } from './run-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The page's first `js` block: the program that embeds Leviath. */
function pageProgram(page: string): string {
  const block = page.match(/^```js\n([\s\S]*?)^```$/m);
  if (!block?.[1]) throw new Error('docs/library.md has no ```js block');
  return block[1];
}

function runNode(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

describe("docs/library.md's program", () => {
  let ran: { code: number | null; stdout: string; stderr: string };
  let fromBuild: boolean;

  beforeAll(async () => {
    const dir = tempDir('library');
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'leviath'), 'dir');
    writeFileSync(join(dir, 'embed.mjs'), pageProgram(readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8')));
    fromBuild = (buildState() as { fresh: boolean }).fresh;
    const env = { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), LEVIATH_HOME: tempDir('library-home') };
    if (fromBuild) ran = await runNode(['embed.mjs'], dir, env);
    else {
      // tsx maps `leviath` to the sources by the folder's tsconfig; the bundle is the one the suite built.
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { paths: { leviath: [join(ROOT, 'src', 'library', 'index.ts')] } } }),
      );
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      ran = await runNode(['--import', tsx, 'embed.mjs'], dir, {
        ...env,
        LEVIATH_BUNDLE: inject('workflowBundlePath'),
      });
    }
  });

  it('runs the demo to completion and prints a line per turn, then the report', () => {
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const turns = ran.stdout.split('\n').filter((l) => l.startsWith('['));
    expect(turns[0]).toMatch(/^\[investigate\] turn 1: \d+\/\d+ tokens$/);
    expect(turns.at(-1)).toMatch(/^\[report\] turn \d+: /);
    expect(ran.stdout).toMatch(/^completed Incident 2026-11-28.*connection pool/m);
  });
});

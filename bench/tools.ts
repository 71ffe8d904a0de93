/**
 * Tool bench: the inputs that used to wedge a worker (a catastrophic grep
 * pattern, a glob of many `**` over a deep tree) and the cost of the
 * confinement and sandbox work on ordinary calls.
 *
 *   node --import tsx bench/tools.ts    (or: npm run bench -- tools)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dispatchTool, type ToolContext } from '../src/tools/dispatch.js';
import { NO_READ_PATHS } from '../src/tools/read-paths.js';

async function time(label: string, runs: number, work: () => Promise<unknown>): Promise<void> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await work();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.stdout.write(`${label.padEnd(58)} ${(ms / runs).toFixed(2).padStart(9)} ms/call  (${runs} calls)\n`);
}

export default async function run(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'lev-bench-tools-'));
  const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({
    workdir: work,
    readPolicy: NO_READ_PATHS,
    permissions: { tools: {} },
    safeCommands: [],
    unattended: true,
    attempt: 1,
    ...extra,
  });
  try {
    writeFileSync(path.join(work, 'line.txt'), `${'a'.repeat(40)}!\n`);
    mkdirSync(path.join(work, ...Array.from({ length: 30 }, (_, i) => `d${i}`)), { recursive: true });
    for (let i = 0; i < 500; i++) {
      const dir = path.join(work, 'src', `m${i % 20}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${i}.ts`), `export const value${i} = ${i};\n`.repeat(50));
    }
    await time('grep (a+)+$ on a 41-character line', 20, () =>
      dispatchTool('grep', { pattern: '(a+)+$', path: 'line.txt' }, ctx()),
    );
    await time('glob of 12 `**/` over a 30-deep tree (+500 files)', 5, () =>
      dispatchTool('glob', { pattern: `${'**/'.repeat(12)}*.nope` }, ctx()),
    );
    await time('glob src/**/*.ts (500 files)', 20, () => dispatchTool('glob', { pattern: 'src/**/*.ts' }, ctx()));
    await time('grep value42 over 500 files', 20, () => dispatchTool('grep', { pattern: 'value42\\b' }, ctx()));
    await time('read_file of a 1.5 KB file', 200, () => dispatchTool('read_file', { path: 'src/m0/f0.ts' }, ctx()));
    await time('write_file of new content', 200, () =>
      dispatchTool('write_file', { path: 'out/new.ts', content: `x${Math.random()}` }, ctx()),
    );
    await time('shell `true`, sandbox kind = "none"', 20, () =>
      dispatchTool('shell', { command: 'true' }, ctx({ sandbox: { kind: 'none', env: [], readRoots: [] } })),
    );
    await time('shell `true`, sandbox kind = "namespace"', 20, () =>
      dispatchTool('shell', { command: 'true' }, ctx({ sandbox: { kind: 'namespace', env: [], readRoots: [] } })),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

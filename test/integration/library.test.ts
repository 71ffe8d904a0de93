/**
 * Programs that import Leviath, run as a user runs them (`node program.mjs` in a folder of its
 * own whose `node_modules/leviath` is this package) against the lane's Temporal server, to the
 * demo's end: docs/library.md's program, taken from the page so the page cannot drift, and a
 * program with a Temporal worker of its own (docs/library.md#the-worker).
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

/** A program with a worker of its own: its runtime installed first, then `Worker.create` with `leviathWorkerOptions`. */
const OWN_WORKER = `
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { connect, createLeviathWorker, leviathWorkerOptions } from 'leviath';

const logger = new DefaultLogger('ERROR');
Runtime.install({ logger });
const demo = fileURLToPath(new URL('blueprints/demo/', import.meta.resolve('leviath/package.json')));
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
const options = await leviathWorkerOptions({ taskQueue: 'own-worker' });
const worker = await Worker.create({ connection, namespace: 'default', ...options });
const serving = worker.run();
const client = await connect();
const run = await client.start(demo, { task: 'Find the root cause.', workdir: demo + 'workspace', taskQueue: 'own-worker' });
console.log('own worker:', (await run.result()).status);
// Leviath's own factory leaves the runtime the program installed in place.
const made = await createLeviathWorker({ taskQueue: 'own-worker-2' });
const idle = made.worker.run();
made.worker.shutdown();
await idle;
await made.connection.close();
console.log('runtime kept:', Runtime.instance().options.logger === logger);
await client.close();
worker.shutdown();
await serving;
await connection.close();
`;

/** `dir` as a user's folder: `node_modules/leviath` is this package; the Temporal SDK beside it, for a program that imports it too. */
function userFolder(): string {
  const dir = tempDir('library');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'leviath'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', '@temporalio'), join(dir, 'node_modules', '@temporalio'), 'dir');
  return dir;
}

/**
 * Runs `program` in a user's folder: through the package's exports to dist/ when the build is
 * fresh; else, as `bin/lev.mjs` does, through tsx to the sources, which the folder's tsconfig
 * maps `leviath` to, with the workflow bundle the suite built.
 */
function runProgram(program: string) {
  const dir = userFolder();
  writeFileSync(join(dir, 'program.mjs'), program);
  const env = { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), LEVIATH_HOME: tempDir('library-home') };
  if ((buildState() as { fresh: boolean }).fresh) return runNode(['program.mjs'], dir, env);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { paths: { leviath: [join(ROOT, 'src', 'library', 'index.ts')] } } }),
  );
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return runNode(['--import', tsx, 'program.mjs'], dir, { ...env, LEVIATH_BUNDLE: inject('workflowBundlePath') });
}

describe("docs/library.md's program", () => {
  let ran: Awaited<ReturnType<typeof runNode>>;

  beforeAll(async () => {
    ran = await runProgram(pageProgram(readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8')));
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

describe("a program's own worker", () => {
  it("serves Leviath's runs with leviathWorkerOptions, and createLeviathWorker keeps the program's runtime", async () => {
    const ran = await runProgram(OWN_WORKER);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('own worker: completed\nruntime kept: true\n');
  });
});

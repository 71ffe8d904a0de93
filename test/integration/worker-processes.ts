/**
 * Leviath workers in processes of their own (`fixtures/worker-process.ts`),
 * so a test can SIGKILL one mid-run, as a machine of a deployment dies.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';
import { temporalAddress } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The variables of a worker process on `queue` of the test server: the
 * workflow bundle global setup built, this blob folder (workers of one
 * deployment share it, as the compose file's volume does) and, when given,
 * the scripted model's log of the calls it served.
 */
export function workerEnv(queue: string, blobDir: string, scriptedLog?: string): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: temporalAddress(),
    LEVIATH_TASK_QUEUE: queue,
    LEVIATH_BUNDLE: inject('workflowBundlePath'),
    LEVIATH_BLOB_DIR: blobDir,
    ...(scriptedLog === undefined ? {} : { LEVIATH_SCRIPTED_LOG: scriptedLog }),
  };
}

/** Starts a worker process with these variables (TEMPORAL_ADDRESS, LEVIATH_TASK_QUEUE, ...); resolves once it polls. */
export function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  return spawnWorker(env, 'ignore');
}

/**
 * A worker process booted but not polling until `poll()`: a test boots the
 * worker that replaces the one it kills while the run goes on, and the
 * replacement still starts with no workflow cached, as after a crash.
 */
export async function startStandbyWorker(env: Record<string, string>): Promise<{ child: ChildProcess; poll(): void }> {
  const child = await spawnWorker({ ...env, LEVIATH_WORKER_STANDBY: '1' }, 'pipe');
  return { child, poll: () => child.stdin?.end('poll\n') };
}

function spawnWorker(env: Record<string, string>, stdin: 'ignore' | 'pipe'): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/integration/fixtures/worker-process.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: [stdin, 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      if (String(d).includes('worker ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker process exited early with ${code}`)));
  });
}

/** Polls `check` until it holds; a hang shows as the test's own timeout, or this one's. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

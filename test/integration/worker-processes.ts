/**
 * Leviath workers in processes of their own (`fixtures/worker-process.ts`),
 * so a test can SIGKILL one mid-run, as a machine of a deployment dies.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Starts a worker process with these variables (TEMPORAL_ADDRESS, LEVIATH_TASK_QUEUE, ...); resolves once it polls. */
export function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/integration/fixtures/worker-process.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
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

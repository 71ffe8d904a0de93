/**
 * Runs a prepared command (`bash -c`, directly or under the sandbox) in its
 * own process group, so a timeout or an abort stops everything the command
 * started. stdout and stderr are interleaved into one capped buffer, as a
 * terminal would show them.
 */
import { spawn } from 'node:child_process';
import type { Spawnable } from './sandbox.js';

/** 900 KB, docs/reference/seeds.md#command-seeds. */
export const SHELL_OUTPUT_CAP_BYTES = 900 * 1024;

export interface ShellRun {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Bytes kept, and bytes dropped by the cap. */
  keptBytes: number;
  droppedBytes: number;
  /** The command could not be started at all. */
  spawnError?: string;
}

export interface ShellOptions {
  cwd: string;
  timeoutSecs: number;
  capBytes?: number;
  signal?: AbortSignal;
}

const STREAM_GRACE_MS = 200;

export function runShell(command: Spawnable, opts: ShellOptions): Promise<ShellRun> {
  const cap = opts.capBytes ?? SHELL_OUTPUT_CAP_BYTES;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    let timedOut = false;
    let aborted = false;
    let settled = false;

    const child = spawn(command.file, command.args, {
      cwd: opts.cwd,
      env: command.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group has already exited.
      }
    };
    const collect = (chunk: Buffer) => {
      const room = cap - kept;
      if (room >= chunk.length) {
        chunks.push(chunk);
        kept += chunk.length;
      } else {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept += Math.max(room, 0);
        dropped += chunk.length - Math.max(room, 0);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutSecs * 1000);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    const finish = (exitCode: number | null, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({
        output: Buffer.concat(chunks).toString('utf8'),
        exitCode,
        timedOut,
        aborted,
        keptBytes: kept,
        droppedBytes: dropped,
        ...(spawnError === undefined ? {} : { spawnError }),
      });
    };
    child.on('error', (err) => finish(null, err.message));
    child.on('exit', (code) => {
      // A background process may hold the pipes open; do not wait on it forever.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code);
      }, STREAM_GRACE_MS).unref();
    });
    child.on('close', (code) => finish(code));
  });
}

export function truncationMarker(run: ShellRun): string {
  if (run.droppedBytes === 0) return '';
  return `\n[output truncated: showed the first ${run.keptBytes.toLocaleString('en-US')} bytes, dropped ${run.droppedBytes.toLocaleString('en-US')} more; narrow the command (e.g. pipe through head or grep)]`;
}

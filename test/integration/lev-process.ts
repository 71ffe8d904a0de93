/**
 * `lev` as a user runs it, in a child process: its output collected, waits
 * for a line to appear or the process to end, and signals as a terminal
 * sends them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const LEV = join(import.meta.dirname, '..', '..', 'bin', 'lev.mjs');

export interface LevProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once the output (stdout and stderr) matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

export function startLev(args: string[], env: Record<string, string | undefined>): LevProcess {
  const child = spawn(process.execPath, [LEV, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of listeners) l();
  };
  child.stdout?.on('data', (d) => {
    out += String(d);
    changed();
  });
  child.stderr?.on('data', (d) => {
    err += String(d);
    changed();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = `${out}\n${err}`.match(pattern);
          if (!m) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`lev ${args[0]} never printed ${pattern}:\n${out}\n${err}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => {
          if (!listeners.has(check)) return;
          check();
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`lev ${args[0]} exited without printing ${pattern}:\n${out}\n${err}`));
          }
        });
        check();
      });
    },
  };
}

/** True while a process with this id runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `lev` run inside the test's own process: `main()` with the arguments, the
 * environment and the working folder a test gives, stdout and stderr
 * captured, the exit code returned as `bin/lev.mjs` would set it. For tests
 * of what a command does and prints; a test of start-up, of a signal or of a
 * process that outlives its command spawns `bin/lev.mjs` instead
 * (test/integration/lev-process.ts), as CONTRIBUTING.md#tests-that-wait says.
 * Calls run one at a time: they share the process's streams, environment
 * and folder.
 */
import { main } from '../../src/cli/main.js';

export interface LevResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What `process.exit` throws while a command runs, so the call ends with that code instead of the test process. */
class Exit {
  constructor(readonly code: number) {}
}

let queue: Promise<unknown> = Promise.resolve();

export function lev(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<LevResult> {
  const run = queue.then(() => runOnce(args, opts));
  queue = run.catch(() => undefined);
  return run;
}

async function runOnce(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string },
): Promise<LevResult> {
  const out: string[] = [];
  const err: string[] = [];
  const capture =
    (into: string[]) =>
    (chunk: unknown, ...rest: unknown[]): boolean => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
  const saved = {
    stdout: process.stdout.write,
    stderr: process.stderr.write,
    exit: process.exit,
    exitCode: process.exitCode,
    cwd: process.cwd(),
    env: new Map(Object.keys(opts.env ?? {}).map((k) => [k, process.env[k]])),
  };
  process.stdout.write = capture(out) as typeof process.stdout.write;
  process.stderr.write = capture(err) as typeof process.stderr.write;
  process.exit = ((code?: number) => {
    throw new Exit(code ?? (typeof process.exitCode === 'number' ? process.exitCode : 0));
  }) as typeof process.exit;
  process.exitCode = undefined;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  if (opts.cwd) process.chdir(opts.cwd);
  let code: number;
  try {
    code = await main(['node', 'lev', ...args]);
  } catch (e) {
    if (e instanceof Exit) code = e.code;
    else {
      // What Node prints for an uncaught error before it exits with 1.
      err.push(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      code = 1;
    }
  } finally {
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    process.exit = saved.exit;
    process.exitCode = saved.exitCode;
    process.chdir(saved.cwd);
    for (const [k, v] of saved.env) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** An `env` for `lev()` that unsets every provider key the test process has, so a command sees only the keys a test gives it. */
export function withoutProviderKeys(): Record<string, undefined> {
  return Object.fromEntries(Object.keys(process.env).flatMap((k) => (/_API_KEY$/.test(k) ? [[k, undefined]] : [])));
}

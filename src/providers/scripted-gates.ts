/**
 * Gates of the scripted provider (docs/scripted.md#gates): a turn with
 * `gate = "<name>"` is answered only once the gate is open, so a test
 * arranges a race (a call in flight while it kills a worker, sends an
 * update or looks at the run) instead of waiting out a latency. A gate is a
 * latch: once open it stays open, for every call and every retry.
 *
 * Within one process a gate is opened with `openGate(name)`; calls served by
 * worker processes of their own see the folder `LEVIATH_SCRIPTED_GATES`
 * names, where a call that reaches a gate leaves `<name>.reached` and waits
 * for `<name>.open`. `gateReached(name)` tells a test that a call waits there
 * (or went through).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How often a call waiting on a gate in a folder looks for its file. */
const FILE_POLL_MS = 20;

const opened = new Set<string>();
const reached = new Set<string>();
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of [...listeners]) listener();
}

/** A promise that settles once `ready()` holds, checked whenever a gate changes in this process (and every `pollMs`). */
function whenReady(ready: () => boolean, signal?: AbortSignal, pollMs?: number): Promise<void> {
  if (ready()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = pollMs === undefined ? undefined : setInterval(check, pollMs);
    function stop(): void {
      listeners.delete(check);
      if (timer) clearInterval(timer);
      signal?.removeEventListener('abort', abort);
    }
    function check(): void {
      if (!ready()) return;
      stop();
      resolve();
    }
    function abort(): void {
      stop();
      reject(signal?.reason);
    }
    if (signal?.aborted) return abort();
    listeners.add(check);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** A gate's name, which is also a file name in the folder of gates. */
export const GATE_NAME = /^[\w-][\w.-]*$/;
export const GATE_NAME_RULE = 'a gate is named with letters, digits, "_", "-" and "." (not first)';

function checkName(name: string): string {
  if (!GATE_NAME.test(name)) throw new Error(`Scripted gate "${name}": ${GATE_NAME_RULE}.`);
  return name;
}

/** Opens the gate in this process, and in `dir` (the folder worker processes watch) when given. */
export function openGate(name: string, dir?: string): void {
  checkName(name);
  if (dir) writeFileSync(join(dir, `${name}.open`), '');
  opened.add(name);
  changed();
}

/** Resolves once a call reached the gate: in this process, or in `dir` for worker processes of their own. */
export function gateReached(name: string, opts: { dir?: string; signal?: AbortSignal } = {}): Promise<void> {
  checkName(name);
  const { dir } = opts;
  return whenReady(
    () => reached.has(name) || (dir !== undefined && existsSync(join(dir, `${name}.reached`))),
    opts.signal,
    dir === undefined ? undefined : FILE_POLL_MS,
  );
}

/** Closes every gate of this process and forgets which were reached (between tests). */
export function resetGates(): void {
  opened.clear();
  reached.clear();
}

/** Waits, as a scripted call does, until the gate is open; `env.LEVIATH_SCRIPTED_GATES` names the folder of gates opened by other processes. */
export function passGate(name: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  checkName(name);
  const dir = env.LEVIATH_SCRIPTED_GATES;
  reached.add(name);
  if (dir) writeFileSync(join(dir, `${name}.reached`), '');
  changed();
  return whenReady(
    () => opened.has(name) || (dir !== undefined && existsSync(join(dir, `${name}.open`))),
    signal,
    dir === undefined ? undefined : FILE_POLL_MS,
  );
}

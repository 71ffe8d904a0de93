/**
 * Following a run at the terminal, for `lev run` and `lev attach`: one bar
 * per region after every turn, the result at the end, and Ctrl-C. The first
 * Ctrl-C detaches (the run goes on), a second within 2 s cancels the run,
 * SIGTERM stops this process and leaves the run on the server
 * (docs/reference/operators.md#ctrl-c).
 */

import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { DevServer } from '../devserver/dev-server.js';
import { workerPool } from '../mcp/pool.js';
import { addressFlag } from '../runtime/defaults.js';
import { undeliveredText } from '../runtime/texts.js';
import type { Progress, RunResult } from '../runtime/types.js';
import type { TextDelta } from '../shapes/run-events.js';
import { dataPath } from '../state/locations.js';
import { PROJECT_ROOT } from '../state/project-root.js';
import { subscribeRun } from '../stream/subscribe.js';
import { artifactLines } from '../tools/artifacts.js';
import { type FollowOptions, followRun } from '../worker/run-client.js';
import { formatBars } from './bars.js';

/** A second Ctrl-C this soon after the first cancels the run. */
export const CANCEL_WINDOW_MS = 2000;
/** The reason a question at the prompt closes when the person detaches. */
export const DETACHED = 'detached';
/** How long a cancelled run's worker stays up for the run to record its end. */
const CANCEL_WAIT_MS = 30_000;

export function printTurn(p: Progress): void {
  process.stdout.write(
    `\n[${p.stage}] turn ${p.visitTurns} (run inference ${p.inferences}) — window ${p.window.used}/${p.window.max} tokens\n${formatBars(p.regions)}\n`,
  );
}

/**
 * Prints the model's text as it arrives (docs/reference/events.md#the-token-channel): a turn's
 * first delta starts a line, the rest follow on it; the turn's summary (`printTurn`) comes after.
 */
export function textPrinter(write: (text: string) => void = (t) => process.stdout.write(t)): (d: TextDelta) => void {
  let turn: number | undefined;
  let at = 0;
  return (delta) => {
    if (delta.turn !== turn || delta.at < at) write(`\n${delta.text}`);
    else write(delta.text);
    turn = delta.turn;
    at = delta.at + delta.text.length;
  };
}

export function printWorkers(w: NonNullable<Progress['workers']>, p: Progress): void {
  process.stdout.write(
    `[${p.stage}] workers: ${w.running} running, ${w.queued} queued, ${w.done} done, ${w.failed} failed\n`,
  );
}

export function printResult(r: RunResult): void {
  process.stdout.write(
    `\n${r.status === 'completed' ? 'Run completed' : r.status === 'cancelled' ? 'Run cancelled' : `Run failed: ${r.error ?? 'unknown error'}`} after stages ${r.stages.join(' → ') || '(none)'}\n`,
  );
  if (r.gatesForced.length > 0)
    process.stdout.write(
      `Gates forced: ${r.gatesForced.map((g) => `${g.stage}→${g.target ?? 'end'} (${g.check})`).join(', ')}\n`,
    );
  if (r.undeliveredMessages) process.stdout.write(`Messages: ${undeliveredText(r.undeliveredMessages)}\n`);
  if (r.output) process.stdout.write(`\nOutput${r.outputFormat ? ` (${r.outputFormat})` : ''}:\n${r.output}\n`);
  const files = artifactLines(r.artifacts);
  if (files.length > 0) process.stdout.write(`\n${files.join('\n')}\n`);
  process.stdout.write(`\nRun id: ${r.runId}\n`);
}

/** The one JSON object `lev run --json` and `lev attach --json` print. */
export function printResultJson(result: RunResult): void {
  const { runId, status, regions, gatesForced, usage, cost, undeliveredMessages, artifacts } = result;
  const output = { format: result.outputFormat ?? 'text', text: result.output };
  process.stdout.write(
    `${JSON.stringify({ runId, status, output, regions: regions.map(({ name, kind, tokens, budget }) => ({ name, kind, tokens, budget })), gatesForced, usage, ...(cost ? { cost } : {}), ...(artifacts?.length ? { artifacts } : {}), ...(result.error ? { error: result.error } : {}), ...(undeliveredMessages ? { undeliveredMessages } : {}) })}\n`,
  );
}

/** The processes this command runs for the run: the embedded server and in-process workers. */
export interface Hosted {
  server?: DevServer;
  workers: { worker: Worker; connection: NativeConnection; running: Promise<unknown> }[];
}

export function hostsAnything(hosted: Hosted): boolean {
  return hosted.server !== undefined || hosted.workers.length > 0;
}

/** Stops the workers (calls in flight go back to the server), then the embedded server. */
export async function stopHosted(hosted: Hosted): Promise<void> {
  // Shutting a worker down twice throws, and one may have stopped on a fatal error already.
  for (const { worker } of hosted.workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  for (const { running, connection } of hosted.workers) {
    await running.catch(() => {});
    await connection.close();
  }
  hosted.workers.length = 0;
  // The MCP servers the tool calls started end with the workers that used them.
  await workerPool.closeAll();
  await hosted.server?.stop();
  hosted.server = undefined;
}

export type FollowEnd =
  | { kind: 'finished'; result: RunResult }
  | { kind: 'detached' }
  /** `ended`: Temporal's status once the run has ended (`cancelled`, or how it ended first), lower case. */
  | { kind: 'cancelled'; ended?: string }
  | { kind: 'stopped'; signal: NodeJS.Signals };

/** Signals as a queue: each `next()` resolves with the next SIGINT or SIGTERM. */
function signalQueue(): { next(): Promise<NodeJS.Signals>; dispose(): void } {
  const waiting: ((sig: NodeJS.Signals) => void)[] = [];
  const pending: NodeJS.Signals[] = [];
  const on = (sig: NodeJS.Signals) => {
    const take = waiting.shift();
    if (take) take(sig);
    else pending.push(sig);
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return {
    next: () => {
      const sig = pending.shift();
      return sig ? Promise.resolve(sig) : new Promise((resolve) => waiting.push(resolve));
    },
    dispose() {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}

const after = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());

/**
 * Follows the run until it ends or a signal says otherwise. Turns stop
 * printing (and a person stops being asked) from the first Ctrl-C on.
 */
export async function followInTerminal(
  client: Client,
  handle: WorkflowHandle,
  opts: {
    onTurn: (p: Progress) => void;
    say: (line: string) => void;
    follow?: Omit<FollowOptions, 'onWaiting'>;
    onWaiting?: FollowOptions['onWaiting'];
    /** Takes the model's text as it arrives, read through `subscribeRun` beside the progress polls. */
    onText?: (delta: TextDelta) => void;
  },
): Promise<FollowEnd> {
  const signals = signalQueue();
  let quiet = false;
  const textStop = new AbortController();
  const onText = opts.onText;
  // The text is a nicety: a stream that cannot be read leaves the turn summaries as they were.
  const texts = onText
    ? (async () => {
        for await (const item of subscribeRun(client, handle.workflowId, { tokens: true, signal: textStop.signal }))
          if (item.kind === 'text' && !quiet) onText(item);
      })().catch(() => {})
    : undefined;
  // Detaching closes a question open at the prompt, as an answer from elsewhere would.
  const detaching = new AbortController();
  const onWaiting = opts.onWaiting;
  try {
    const following = followRun(
      client,
      handle,
      (p) => {
        if (!quiet) opts.onTurn(p);
      },
      {
        ...opts.follow,
        ...(onWaiting
          ? {
              onWaiting: async (p: Progress, signal: AbortSignal) => {
                if (!quiet) await onWaiting(p, AbortSignal.any([signal, detaching.signal]));
              },
            }
          : {}),
      },
    ).then((result) => ({ kind: 'finished' as const, result }));
    const first = await Promise.race([following, signals.next()]);
    if (typeof first !== 'string') return first;
    if (first === 'SIGTERM') return { kind: 'stopped', signal: first };
    quiet = true;
    detaching.abort(DETACHED);
    opts.say(
      `\ndetaching from run ${handle.workflowId}; press Ctrl-C again within ${CANCEL_WINDOW_MS / 1000} s to cancel it`,
    );
    const second = await Promise.race([following, signals.next(), after(CANCEL_WINDOW_MS)]);
    if (second === 'timeout') return { kind: 'detached' };
    if (typeof second !== 'string') return second;
    if (second === 'SIGTERM') return { kind: 'stopped', signal: second };
    opts.say(`cancelling run ${handle.workflowId} ...`);
    // A run that ended meanwhile has nothing left to cancel; `following` then holds its result.
    await handle.cancel().catch(() => {});
    const end = await Promise.race([following, after(CANCEL_WAIT_MS), signals.next()]);
    if (typeof end !== 'object') return { kind: 'cancelled' };
    return { kind: 'cancelled', ended: (await handle.describe()).status.name.toLowerCase() };
  } finally {
    // The reader ends before this returns, so none of its calls outlives the caller's connection
    // (a call on a closed channel throws outside any promise and ends the process).
    textStop.abort();
    await texts;
    signals.dispose();
  }
}

/** The command that follows the run again, with the address when it is not the default. */
export function attachCommand(runId: string, address: string): string {
  return `lev attach ${runId}${addressFlag(address)}`;
}

/**
 * Hands the run over to a `lev attach` in the background, which starts the
 * embedded server and a worker again when none answers, follows the run to
 * its end and stops. Its output goes to `logs/<run>.log` in the data folder.
 */
export function continueInBackground(runId: string, address: string): { pid: number | undefined; log: string } {
  const dir = dataPath('logs');
  mkdirSync(dir, { recursive: true });
  const log = join(dir, `${runId}.log`);
  const out = openSync(log, 'a');
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin', 'lev.mjs'), 'attach', runId, '--address', address, '--json'],
    { detached: true, stdio: ['ignore', out, out], env: process.env },
  );
  child.unref();
  return { pid: child.pid, log };
}

/**
 * Prints how following ended: the result (exit 1 unless it completed), or
 * what became of the run after a signal. Returns the code to exit with at
 * once after a signal, since the result's long-poll would outlive the
 * connection.
 */
export async function reportEnd(
  end: FollowEnd,
  opts: { runId: string; address: string; hosted: Hosted; json?: boolean; say: (line: string) => void },
): Promise<number | undefined> {
  if (end.kind !== 'finished')
    return endAfterSignal(end, opts.runId, opts.address, opts.hosted, {
      say: opts.say,
      reattach: attachCommand(opts.runId, opts.address),
    });
  if (opts.json) printResultJson(end.result);
  else printResult(end.result);
  if (end.result.status !== 'completed') process.exitCode = 1;
  return undefined;
}

/** Says what became of the run after a signal, and which exit code that is. */
async function endAfterSignal(
  end: Exclude<FollowEnd, { kind: 'finished' }>,
  runId: string,
  address: string,
  hosted: Hosted,
  opts: { say: (line: string) => void; reattach: string },
): Promise<number> {
  const { say, reattach } = opts;
  if (end.kind === 'cancelled') {
    await stopHosted(hosted);
    say(
      end.ended
        ? `run ${runId} ended after the cancel: ${end.ended}`
        : `the cancel of run ${runId} is recorded; the run ends when a worker picks it up (\`${reattach}\` runs one)`,
    );
    return 130;
  }
  if (end.kind === 'stopped') {
    await stopHosted(hosted);
    say(`stopped on ${end.signal}; run ${runId} stays on the server, and \`${reattach}\` resumes it.`);
    return 143;
  }
  if (!hostsAnything(hosted)) {
    say(`detached; run ${runId} goes on, and \`${reattach}\` follows it again.`);
    return 130;
  }
  await stopHosted(hosted);
  const bg = continueInBackground(runId, address);
  say(
    `detached; run ${runId} goes on in the background (pid ${bg.pid ?? '?'}, log ${bg.log}); \`${reattach}\` follows it again, \`lev cancel ${runId}${addressFlag(address)}\` stops it.`,
  );
  return 130;
}

/**
 * `npm run bench -- promises DIR`: replays the recorded histories under DIR (`*.history.gz`, as
 * `scripts/record-histories.ts` writes them) against this build's workflow code on the main
 * thread (a replay worker runs in debug mode) and counts the promises the workflow code made in each, the ones the
 * SDK's promise hook takes a stack trace for (docs/benchmarks.md#a-turn-without-promises). A
 * count, not a timing: the same history and code give the same figure on a loaded machine, so
 * two builds compare by replaying what each recorded of the same scenarios.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promiseHooks } from 'node:v8';
import { gunzipSync } from 'node:zlib';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowSinks } from '../src/telemetry/tracing.js';
import { bundleWorkflows } from '../src/worker/create-worker.js';
import { printTable } from './kit.js';

function histories(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return histories(path);
      return name.endsWith('.history.gz') ? [path] : [];
    });
}

export default async function promises(args: string[]): Promise<void> {
  const dir = args[0];
  if (!dir) throw new Error('usage: npm run bench -- promises DIR (a folder of recorded histories)');
  const bundle = await bundleWorkflows();
  let made = 0;
  // A promise of the workflow's V8 context has that context's Promise, not this one.
  const stop = promiseHooks.onInit((promise) => {
    if (promise.constructor !== Promise) made++;
  });
  const rows: Record<string, string | number>[] = [];
  try {
    for (const file of histories(dir)) {
      const name = file.slice(file.lastIndexOf('/') + 1);
      // A sub-agent's id holds `/`, which its file name carries percent-encoded.
      const workflowId = decodeURIComponent(name.slice(0, name.lastIndexOf('--')));
      const history = proto.temporal.api.history.v1.History.decode(gunzipSync(readFileSync(file)));
      const before = made;
      await Worker.runReplayHistory({ workflowBundle: bundle, sinks: workflowSinks() }, history, workflowId);
      const infers = (history.events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'infer',
      ).length;
      const count = made - before;
      rows.push({
        workflow: workflowId,
        promises: count,
        inferences: infers,
        'promises per inference': infers > 0 ? (count / infers).toFixed(1) : '',
      });
    }
  } finally {
    stop();
  }
  printTable(rows);
}

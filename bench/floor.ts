/**
 * `npm run bench -- floor N [--local] [--latency ms] [--turns 12] [--settle-ms 3000] [--profile]`:
 * Temporal's own floor for `burst`: N bare workflows at once (bench/floor/workflow.ts), each
 * making one activity call per turn (with `--local`, one local activity call) to the same fake
 * model at the same latency, nothing else, on a worker process with `lev worker`'s settings
 * and a dev server started as `burst` starts it. Prints the row `burst` prints, so a turn of
 * Leviath reads as a multiple of this one; `burst` measures it in the same run beside its own.
 */
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import {
  type Bench,
  type FakeModel,
  numberArg,
  printTable,
  startBenchServer,
  startFakeModel,
  startWorkerProcess,
} from './kit.js';
import { type BurstShape, measureBurst } from './turn-meter.js';

export interface FloorOptions extends BurstShape {
  local: boolean;
  /** Where a `--cpu-prof` of the floor's worker goes. */
  profileDir?: string;
  nodeFlags?: string[];
}

/** Starts the floor's worker on `bench`, drains N bare workflows through it, stops it; the row. */
export async function floorRow(
  bench: Bench,
  model: FakeModel,
  opts: FloorOptions,
): Promise<Record<string, string | number>> {
  const taskQueue = `floor-${Date.now()}`;
  const worker = await startWorkerProcess(bench, {
    taskQueue,
    env: { FLOOR_MODEL_URL: model.baseURL },
    nodeFlags: opts.nodeFlags ?? [],
    ...(opts.profileDir ? { profileDir: opts.profileDir } : {}),
    command: [
      '--import',
      'tsx',
      new URL('./floor/worker.ts', import.meta.url).pathname,
      bench.server.address,
      taskQueue,
    ],
  });
  const prefix = `floor-${Date.now()}`;
  try {
    return await measureBurst(bench, worker, opts, {
      label: opts.local ? 'floor (local activity)' : 'floor (activity)',
      prefix,
      ...(opts.local ? {} : { turnsFrom: 'floorInfer' }),
      modelCalls: () => model.log.length,
      drain: () => drainFloor(bench.client, { ...opts, taskQueue, prefix }),
    });
  } finally {
    await worker.stop();
  }
}

/** Starts every floor workflow and awaits them; how many did not complete. */
async function drainFloor(client: Client, opts: FloorOptions & { taskQueue: string; prefix: string }): Promise<number> {
  const handles = await Promise.all(
    Array.from({ length: opts.agents }, (_, i) =>
      client.workflow.start('floorWorkflow', {
        taskQueue: opts.taskQueue,
        workflowId: `${opts.prefix}-${i}`,
        args: [i, opts.turns + 2, opts.local],
      }),
    ),
  );
  const results = await Promise.allSettled(handles.map((h) => h.result()));
  return results.filter((r) => r.status === 'rejected').length;
}

export default async function run(args: string[]): Promise<void> {
  const opts: FloorOptions & { appendKb: number; profile: boolean } = {
    agents: 8,
    latencyMs: 500,
    turns: 12,
    settleMs: 3000,
    appendKb: 25,
    local: false,
    profile: false,
  };
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--local') opts.local = true;
    else if (arg === '--latency') opts.latencyMs = numberArg(args, ++i, arg);
    else if (arg === '--turns') opts.turns = Math.max(1, Math.floor(numberArg(args, ++i, arg)));
    else if (arg === '--settle-ms') opts.settleMs = numberArg(args, ++i, arg);
    else if (arg === '--profile') opts.profile = true;
    else positional.push(arg);
  }
  if (positional[0] !== undefined) opts.agents = Math.max(1, Math.floor(Number(positional[0])));
  if (!Number.isFinite(opts.agents)) throw new Error('usage: npm run bench -- floor N [--local] [--latency ms] ...');
  const model = await startFakeModel(opts);
  const bench = await startBenchServer('floor');
  const profileDir = join(bench.tmp, 'profile');
  try {
    printTable([await floorRow(bench, model, { ...opts, ...(opts.profile ? { profileDir } : {}) })]);
    if (opts.profile) process.stdout.write(`floor worker CPU profile: ${profileDir}\n`);
  } finally {
    await bench.close();
    await model.close();
  }
}

/**
 * How `burst` and `floor` read a burst of agents: the worker's and the dev
 * server's CPU and memory across the drain (from /proc), and the row both
 * print, so Leviath's turn and Temporal's floor are measured alike.
 */
import { type Bench, historyTotals, Meter, type WorkerProcess, withChildren } from './kit.js';

export interface BurstShape {
  agents: number;
  turns: number;
  latencyMs: number;
  /** How long start-up work settles before the idle figures are read. */
  settleMs: number;
}

/**
 * Settles, then times `drain` (starting every agent and awaiting them all) and reads CPU
 * per turn, idle and peak RSS and history per turn of the runs whose ids start with `prefix`.
 * `turnsFrom`: the activity whose first call starts a run's turns (`all` against `turn`);
 * unset, every event is a turn's.
 */
export async function measureBurst(
  bench: Bench,
  worker: WorkerProcess,
  shape: BurstShape,
  run: { label: string; prefix: string; drain: () => Promise<number>; turnsFrom?: string; modelCalls: () => number },
): Promise<Record<string, string | number>> {
  const serverMeter = new Meter(() => withChildren(bench.server.child.pid!));
  const workerMeter = new Meter(() => [worker.pid]);
  await new Promise((r) => setTimeout(r, shape.settleMs));
  const idle = { worker: workerMeter.rss(), server: serverMeter.rss() };
  workerMeter.peak = idle.worker;
  serverMeter.peak = idle.server;
  const cpu0 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  const calls0 = run.modelCalls();
  const started = Date.now();
  const failed = await run.drain();
  const drainS = (Date.now() - started) / 1000;
  const cpu1 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  workerMeter.stop();
  serverMeter.stop();
  const turns = shape.agents * shape.turns;
  const history = await historyTotals(bench.client, run.prefix, run.turnsFrom ?? null);
  const idealS = (shape.turns * shape.latencyMs) / 1000;
  const workerMs = (cpu1.worker - cpu0.worker) / turns;
  const serverMs = (cpu1.server - cpu0.server) / turns;
  if (failed > 0) process.stdout.write(`${run.label}: ${failed} runs did not complete\n`);
  return {
    run: run.label,
    N: shape.agents,
    'drain s': drainS.toFixed(2),
    'ideal s': idealS.toFixed(2),
    ratio: (drainS / idealS).toFixed(2),
    'worker CPU ms/turn': workerMs.toFixed(1),
    'server CPU ms/turn': serverMs.toFixed(1),
    'CPU ms/turn': (workerMs + serverMs).toFixed(1),
    'worker RSS idle/peak MB': `${idle.worker.toFixed(0)}/${workerMeter.peak.toFixed(0)}`,
    'server RSS idle/peak MB': `${idle.server.toFixed(0)}/${serverMeter.peak.toFixed(0)}`,
    'events/turn all/turn': `${(history.events / turns).toFixed(1)}/${(history.turnEvents / turns).toFixed(1)}`,
    'history bytes/turn all/turn': `${(history.bytes / turns).toFixed(0)}/${(history.turnBytes / turns).toFixed(0)}`,
    'model calls': run.modelCalls() - calls0,
  };
}

/** The row of `run` over the row of `floor`, for the CPU columns: how many floors a turn costs. */
export function overFloor(
  run: Record<string, string | number>,
  floor: Record<string, string | number>,
): Record<string, string | number> {
  const x = (key: string) => `${(Number(run[key]) / Number(floor[key])).toFixed(2)} ×`;
  return {
    run: `${run.run} / ${floor.run}`,
    N: run.N ?? '',
    'drain s': x('drain s'),
    'ideal s': '',
    ratio: '',
    'worker CPU ms/turn': x('worker CPU ms/turn'),
    'server CPU ms/turn': x('server CPU ms/turn'),
    'CPU ms/turn': x('CPU ms/turn'),
  };
}

/**
 * `npm run bench -- crash [N] [--signal KILL|TERM] [--latency ms] [--turns 12] [--heartbeat-secs 20]`:
 * N burst agents (`bench/burst.ts`) on one `lev worker`; once every agent is
 * a few turns in, the worker is stopped with the signal (SIGKILL: a crash;
 * SIGTERM: a graceful stop) and a replacement started. Prints how long after
 * the replacement was ready the first model call came and the last agent
 * resumed, and how many model calls were repeated (a turn served twice: the
 * fake model reads the turn from the prompt, so a retry is the same turn).
 * After a SIGKILL the calls in flight wait out the runs' heartbeat timeout
 * (`heartbeatTimeoutSecs`, 20 s by default; `--heartbeat-secs` sets it).
 */
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { runOutcome } from '../src/worker/run-client.js';
import { burstBlueprint } from './burst.js';
import {
  numberArg,
  printRow,
  type Served,
  startAgents,
  startBenchServer,
  startFakeModel,
  startWorkerProcess,
} from './kit.js';

interface Options {
  agents: number;
  signal: NodeJS.Signals;
  latencyMs: number;
  turns: number;
  heartbeatSecs: number;
}

function parseArgs(args: string[]): Options {
  const opts: Options = {
    agents: 8,
    signal: 'SIGKILL',
    latencyMs: 500,
    turns: 12,
    heartbeatSecs: DEFAULT_RUN_OPTIONS.heartbeatTimeoutSecs,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--signal') opts.signal = `SIG${String(args[++i]).replace(/^SIG/, '').toUpperCase()}` as NodeJS.Signals;
    else if (arg === '--latency') opts.latencyMs = numberArg(args, ++i, arg);
    else if (arg === '--turns') opts.turns = Math.max(4, Math.floor(numberArg(args, ++i, arg)));
    else if (arg === '--heartbeat-secs') opts.heartbeatSecs = Math.max(1, Math.floor(numberArg(args, ++i, arg)));
    else opts.agents = Math.max(1, Math.floor(Number(arg)));
  }
  if (opts.signal !== 'SIGKILL' && opts.signal !== 'SIGTERM') throw new Error('--signal is KILL or TERM');
  return opts;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

/** Turns served more than once, per agent. */
function repeats(log: Served[]): Map<string, number> {
  const seen = new Set<string>();
  const out = new Map<string, number>();
  for (const s of log) {
    const key = `${s.agent}:${s.turn}`;
    if (seen.has(key)) out.set(s.agent, (out.get(s.agent) ?? 0) + 1);
    seen.add(key);
  }
  return out;
}

export default async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const model = await startFakeModel({ ...opts, appendKb: 25 });
  const bench = await startBenchServer('crash');
  const taskQueue = `crash-${Date.now()}`;
  const env = { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-bench' };
  const first = await startWorkerProcess(bench, { taskQueue, env });
  const prefix = `crash-${Date.now()}`;
  const bp = burstBlueprint(opts.turns);
  const started = Date.now();
  const handles = await startAgents(bench, bp, {
    agents: opts.agents,
    taskQueue,
    prefix,
    options: { heartbeatTimeoutSecs: opts.heartbeatSecs },
  });
  const agents = handles.map((_, i) => String(i));
  // Every agent a few turns in, and calls in flight.
  await until(() => agents.every((a) => model.log.filter((s) => s.agent === a).length >= 3));
  const stoppedAt = Date.now();
  await first.stop(opts.signal);
  const callsAtStop = model.log.length;
  const second = await startWorkerProcess(bench, { taskQueue, env });
  const results = await Promise.all(handles.map((h) => runOutcome(h)));
  const drainS = (Date.now() - started) / 1000;

  const after = model.log.slice(callsAtStop);
  const firstCall = after[0];
  const resumed = agents.map((a) => after.find((s) => s.agent === a)?.at ?? Number.NaN);
  const repeated = repeats(model.log);
  const failed = results.filter((r) => r.status !== 'completed');
  printRow({
    N: opts.agents,
    signal: opts.signal,
    'replacement ready s after stop': ((second.readyAt - stoppedAt) / 1000).toFixed(2),
    'first call s after ready': firstCall ? ((firstCall.at - second.readyAt) / 1000).toFixed(2) : 'none',
    'all resumed s after ready': ((Math.max(...resumed) - second.readyAt) / 1000).toFixed(2),
    'repeated calls (max per agent)': `${[...repeated.values()].reduce((a, b) => a + b, 0)} (${Math.max(0, ...repeated.values())})`,
    'drain s': drainS.toFixed(2),
    'runs completed': `${results.length - failed.length}/${results.length}`,
  });
  if (failed.length > 0) process.stdout.write(`${failed.length} runs did not complete: ${failed[0]?.error}\n`);
  await second.stop();
  await bench.close();
  await model.close();
}

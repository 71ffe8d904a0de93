/**
 * `npm run bench -- burst N [--latency ms] [--append-kb 25] [--turns 12] [--settle-ms 3000] [--profile]`:
 * N agents at once against one `lev worker` process, answered by a local fake
 * OpenAI-compatible model that waits a fixed latency and replies with one
 * `context_append` of the given size until the last turn. The runs' results
 * are awaited as a deployment's client does (nobody polls their progress).
 * Prints one row: drain time against the ideal (turns × latency), CPU per
 * turn of the worker and of the Temporal dev server (from /proc/<pid>/stat),
 * their idle and peak RSS, and history events and bytes per turn: over
 * everything (`all`, which includes each run's start: the blueprint, the
 * child visit) and from each visit's first inference on (`turn`, what one
 * more turn costs). The idle figures are read `--settle-ms` after the worker
 * is up. `--profile` writes a `--cpu-prof` of the worker.
 */
import { join } from 'node:path';
import { loadBlueprintFromString } from '../src/blueprint/load.js';
import { runOutcome } from '../src/worker/run-client.js';
import {
  burstBlueprintToml,
  historyTotals,
  Meter,
  numberArg,
  printRow,
  startAgents,
  startBenchServer,
  startFakeModel,
  startWorkerProcess,
  withChildren,
} from './kit.js';

interface Options {
  agents: number;
  latencyMs: number;
  appendKb: number;
  turns: number;
  /** How long start-up work settles before the idle figures are read. */
  settleMs: number;
  profile: boolean;
  /** `--server-flag F`, repeatable: a `temporal server start-dev` flag to try, e.g. `--server-flag=--sqlite-pragma=synchronous=off`. */
  serverFlags: string[];
  /** `--worker-node-flag F`, repeatable: a flag for the worker's `node`, e.g. `--worker-node-flag=--max-semi-space-size=2`. */
  workerNodeFlags: string[];
}

function parseArgs(args: string[]): Options {
  const opts: Options = {
    agents: 8,
    latencyMs: 500,
    appendKb: 25,
    turns: 12,
    settleMs: 3000,
    profile: false,
    serverFlags: [],
    workerNodeFlags: [],
  };
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--latency') opts.latencyMs = numberArg(args, ++i, arg);
    else if (arg === '--append-kb') opts.appendKb = numberArg(args, ++i, arg);
    else if (arg === '--turns') opts.turns = Math.max(1, Math.floor(numberArg(args, ++i, arg)));
    else if (arg === '--settle-ms') opts.settleMs = numberArg(args, ++i, arg);
    else if (arg === '--profile') opts.profile = true;
    else if (arg.startsWith('--server-flag=')) opts.serverFlags.push(arg.slice('--server-flag='.length));
    else if (arg.startsWith('--worker-node-flag=')) opts.workerNodeFlags.push(arg.slice('--worker-node-flag='.length));
    else positional.push(arg);
  }
  if (positional[0] !== undefined) opts.agents = Math.max(1, Math.floor(Number(positional[0])));
  if (!Number.isFinite(opts.agents)) throw new Error('usage: npm run bench -- burst N [--latency ms] ...');
  return opts;
}

export function burstBlueprint(turns: number) {
  const loaded = loadBlueprintFromString(burstBlueprintToml(turns), process.cwd(), 'burst-bench.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

export default async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const model = await startFakeModel(opts);
  const bench = await startBenchServer('burst', { extraArgs: opts.serverFlags });
  const taskQueue = `burst-${Date.now()}`;
  const profileDir = join(bench.tmp, 'profile');
  const worker = await startWorkerProcess(bench, {
    taskQueue,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-bench' },
    nodeFlags: opts.workerNodeFlags,
    ...(opts.profile ? { profileDir } : {}),
  });
  const serverMeter = new Meter(() => withChildren(bench.server.child.pid!));
  const workerMeter = new Meter(() => [worker.pid]);

  // Let start-up work settle before reading the idle figures.
  await new Promise((r) => setTimeout(r, opts.settleMs));
  const idle = { worker: workerMeter.rss(), server: serverMeter.rss() };
  workerMeter.peak = idle.worker;
  serverMeter.peak = idle.server;
  const cpu0 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  const prefix = `burst-${Date.now()}`;
  const bp = burstBlueprint(opts.turns);
  const started = Date.now();
  const handles = await startAgents(bench, bp, { agents: opts.agents, taskQueue, prefix });
  const results = await Promise.all(handles.map((h) => runOutcome(h)));
  const drainS = (Date.now() - started) / 1000;
  const cpu1 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  const failed = results.filter((r) => r.status !== 'completed');
  const turns = opts.agents * opts.turns;
  const history = await historyTotals(bench.client, prefix);
  const idealS = (opts.turns * opts.latencyMs) / 1000;

  printRow({
    N: opts.agents,
    'drain s': drainS.toFixed(2),
    'ideal s': idealS.toFixed(2),
    ratio: (drainS / idealS).toFixed(2),
    'worker CPU ms/turn': ((cpu1.worker - cpu0.worker) / turns).toFixed(1),
    'server CPU ms/turn': ((cpu1.server - cpu0.server) / turns).toFixed(1),
    'worker RSS idle/peak MB': `${idle.worker.toFixed(0)}/${workerMeter.peak.toFixed(0)}`,
    'server RSS idle/peak MB': `${idle.server.toFixed(0)}/${serverMeter.peak.toFixed(0)}`,
    'events/turn all/turn': `${(history.events / turns).toFixed(1)}/${(history.turnEvents / turns).toFixed(1)}`,
    'history bytes/turn all/turn': `${(history.bytes / turns).toFixed(0)}/${(history.turnBytes / turns).toFixed(0)}`,
    'model calls': model.log.length,
  });
  if (failed.length > 0) process.stdout.write(`${failed.length} runs did not complete: ${failed[0]?.error}\n`);

  workerMeter.stop();
  serverMeter.stop();
  await worker.stop();
  if (opts.profile) process.stdout.write(`worker CPU profile: ${profileDir}\n`);
  await bench.close();
  await model.close();
}

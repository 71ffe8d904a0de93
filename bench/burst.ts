/**
 * `npm run bench -- burst N [--latency ms] [--append-kb 25] [--turns 12] [--settle-ms 3000] [--profile]
 * [--no-floor] [--floor-local] [--event-types] [--local]`:
 * N agents at once against one `lev worker` process, answered by a local fake
 * OpenAI-compatible model that waits a fixed latency and replies with one
 * `context_append` of the given size until the last turn. The runs' results
 * are awaited as a deployment's client does (nobody polls their progress).
 * First, on the same server, the floor (bench/floor.ts: the same N bare
 * workflows of one activity a turn; with `--floor-local` also of one local
 * activity a turn), so every figure reads as a multiple of Temporal's own.
 * Prints a row for each: drain time against the ideal (turns × latency), CPU per
 * turn of the worker and of the Temporal dev server (from /proc/<pid>/stat),
 * their idle and peak RSS, and history events and bytes per turn: over
 * everything (`all`, which includes each run's start: the blueprint, the
 * child visit) and from each visit's first inference on (`turn`, what one
 * more turn costs); then Leviath's row over each floor's. The idle figures are read `--settle-ms` after the worker
 * is up. `--profile` writes a `--cpu-prof` of each worker; `--event-types` prints the events per
 * turn by type. `--local` runs Leviath's inferences as local activities (`[runtime] local_inference
 * = true`, docs/reference/blueprint.md#runtime).
 */
import { join } from 'node:path';
import { loadBlueprintFromString } from '../src/blueprint/load.js';
import { type InferenceShape, shapeToml } from '../src/runtime/inference-shape.js';
import { runOutcome } from '../src/worker/run-client.js';
import { floorRow } from './floor.js';
import {
  type Bench,
  burstBlueprintToml,
  type FakeModel,
  numberArg,
  printTable,
  startAgents,
  startBenchServer,
  startFakeModel,
  startWorkerProcess,
} from './kit.js';
import { type BurstShape, measureBurst, overFloor } from './turn-meter.js';

interface Options extends BurstShape {
  appendKb: number;
  profile: boolean;
  /** Measure the floor (bench/floor.ts) in the same run: with an activity a turn unless `--no-floor`, with a local activity with `--floor-local`. */
  floor: boolean;
  floorLocal: boolean;
  /** `--local`: the agents' inferences as local activities. */
  local: boolean;
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
    floor: true,
    floorLocal: false,
    local: false,
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
    else if (arg === '--no-floor') opts.floor = false;
    else if (arg === '--event-types') opts.eventTypes = true;
    else if (arg === '--floor-local') opts.floorLocal = true;
    else if (arg === '--local') opts.local = true;
    else if (arg.startsWith('--server-flag=')) opts.serverFlags.push(arg.slice('--server-flag='.length));
    else if (arg.startsWith('--worker-node-flag=')) opts.workerNodeFlags.push(arg.slice('--worker-node-flag='.length));
    else positional.push(arg);
  }
  if (positional[0] !== undefined) opts.agents = Math.max(1, Math.floor(Number(positional[0])));
  if (!Number.isFinite(opts.agents)) throw new Error('usage: npm run bench -- burst N [--latency ms] ...');
  return opts;
}

export function burstBlueprint(turns: number, shape: InferenceShape = 'activity') {
  const toml = `${shapeToml(shape)}${burstBlueprintToml(turns)}`;
  const loaded = loadBlueprintFromString(toml, process.cwd(), 'burst-bench.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

export default async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const model = await startFakeModel(opts);
  const bench = await startBenchServer('burst', { extraArgs: opts.serverFlags });
  const profileDir = join(bench.tmp, 'profile');
  const rows: Record<string, string | number>[] = [];
  try {
    // The floor first, on the same server, so every row of this run is read against it.
    const floors = [...(opts.floor ? [false] : []), ...(opts.floorLocal ? [true] : [])];
    for (const local of floors)
      rows.push(
        await floorRow(bench, model, {
          ...opts,
          local,
          nodeFlags: opts.workerNodeFlags,
          ...(opts.profile ? { profileDir: join(profileDir, local ? 'floor-local' : 'floor') } : {}),
        }),
      );
    rows.push(await leviathRow(bench, model, opts, opts.profile ? join(profileDir, 'leviath') : undefined));
  } finally {
    await bench.close();
    await model.close();
  }
  const leviath = rows.at(-1)!;
  printTable([...rows, ...rows.slice(0, -1).map((floor) => overFloor(leviath, floor))]);
  if (opts.profile) process.stdout.write(`worker CPU profiles: ${profileDir}\n`);
}

/** Starts `lev worker` on `bench`, drains N burst agents through it, stops it; the row. */
async function leviathRow(
  bench: Bench,
  model: FakeModel,
  opts: Options,
  profileDir: string | undefined,
): Promise<Record<string, string | number>> {
  const taskQueue = `burst-${Date.now()}`;
  const worker = await startWorkerProcess(bench, {
    taskQueue,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-bench' },
    nodeFlags: opts.workerNodeFlags,
    ...(profileDir ? { profileDir } : {}),
  });
  const prefix = `burst-${Date.now()}`;
  const bp = burstBlueprint(opts.turns, opts.local ? 'local' : 'activity');
  try {
    return await measureBurst(bench, worker, opts, {
      label: opts.local ? 'leviath local' : 'leviath',
      prefix,
      turnsFrom: 'infer',
      modelCalls: () => model.log.length,
      drain: async () => {
        const handles = await startAgents(bench, bp, { agents: opts.agents, taskQueue, prefix });
        const results = await Promise.all(handles.map((h) => runOutcome(h)));
        const failed = results.filter((r) => r.status !== 'completed');
        if (failed.length > 0) process.stdout.write(`first failure: ${failed[0]?.error}\n`);
        return failed.length;
      },
    });
  } finally {
    await worker.stop();
  }
}

/**
 * `npm run bench -- fanout [N ...] [--latency ms] [--calls 3] [--max-workers 30] [--local] [--dissect] [--profile]`:
 * one fan-out of N items (default 10, 100 and 1,000) on one `lev worker`
 * process, every worker answered by the scripted model at a fixed latency
 * per call. Prints one row per N: the run's wall time against the ideal
 * (`ceil(N / max_workers) × calls × latency`), the parents' history (the
 * stage visit that starts the workers, and past 500 items its shards:
 * events, bytes, bytes per item), the CPU time of the worker process and
 * of the server and how busy they kept the machine, and the worker process's
 * idle and peak RSS. `--local` runs the workers' inferences as local activities
 * (`[runtime] local_inference`, docs/benchmarks.md#local-inference).
 * Starts its own dev server.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { stringify } from 'smol-toml';
import { loadBlueprintFromString } from '../src/blueprint/load.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { followRun, startRun } from '../src/worker/run-client.js';
import { Meter, rssMb, startBenchServer, startWorkerProcess, withChildren } from './kit.js';

interface Options {
  sizes: number[];
  latencyMs: number;
  calls: number;
  maxWorkers: number;
  /** `--local`: inference as a local activity (`[runtime] local_inference = true`). */
  local: boolean;
  dissect: boolean;
  /** `--profile`: a `--cpu-prof` of the worker process (one file per thread). */
  profile: boolean;
  /** `--dc key=value`: dynamic config values for the bench's dev server, as its flags. */
  serverFlags: string[];
  /** `--memory`: the dev server keeps its database in memory instead of a file. */
  memory: boolean;
  /** `--pragma name=value`: a SQLite pragma for the bench's dev server. */
  pragmas: Record<string, string>;
}

function parseArgs(args: string[]): Options {
  const opts: Options = {
    sizes: [],
    latencyMs: 500,
    calls: 3,
    maxWorkers: 30,
    local: false,
    dissect: false,
    profile: false,
    serverFlags: [],
    memory: false,
    pragmas: {},
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = () => {
      const v = Number(args[++i]);
      if (!Number.isInteger(v) || v < 0) throw new Error(`${arg} needs a whole number`);
      return v;
    };
    if (arg === '--latency') opts.latencyMs = value();
    else if (arg === '--calls') opts.calls = Math.max(1, value());
    else if (arg === '--max-workers') opts.maxWorkers = value();
    else if (arg === '--local') opts.local = true;
    else if (arg === '--dissect') opts.dissect = true;
    else if (arg === '--profile') opts.profile = true;
    else if (arg === '--memory') opts.memory = true;
    else if (arg === '--pragma') {
      const [name, value] = String(args[++i]).split('=');
      if (!name || value === undefined) throw new Error('--pragma needs name=value');
      opts.pragmas[name] = value;
    } else if (arg === '--dc') {
      const [key, raw] = String(args[++i]).split('=');
      if (!key || raw === undefined) throw new Error('--dc needs key=value');
      const parsed = raw === 'true' || raw === 'false' ? raw === 'true' : Number.isNaN(Number(raw)) ? raw : Number(raw);
      opts.serverFlags.push('--dynamic-config-value', `${key}=${JSON.stringify(parsed)}`);
    } else if (/^\d+$/.test(arg)) opts.sizes.push(Number(arg));
    else
      throw new Error(
        'usage: npm run bench -- fanout [N ...] [--latency ms] [--calls n] [--max-workers n] [--local] [--dissect] [--profile]',
      );
  }
  if (opts.sizes.length === 0) opts.sizes = [10, 100, 1000];
  return opts;
}

/** The script: the split stage fans out to N items at once; each worker makes `calls` calls of `latency` ms. */
function script(n: number, opts: Options): string {
  const work = Array.from({ length: opts.calls }, (_, k) =>
    k < opts.calls - 1
      ? {
          stage: 'work',
          latency_ms: opts.latencyMs,
          tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: `step ${k + 1} done` } }],
        }
      : { stage: 'work', latency_ms: opts.latencyMs, text: 'Item done: nothing to report.' },
  );
  const items = Array.from({ length: n }, (_, i) => ({ id: `item-${i + 1}`, context: `Handle item ${i + 1}.` }));
  return stringify({ turns: [{ stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items } }] }, ...work] });
}

function blueprint(model: string, opts: Options) {
  const toml = `
[agent]
name = "fanout-bench"
model = "${model}"
[models."${model}"]
context_window = 200000
${opts.local ? '[runtime]\nlocal_inference = true\n' : ''}[context.regions]
task    = { kind = "pinned", max_tokens = 1000 }
notes   = { kind = "temporary", max_tokens = 2000 }
results = { kind = "temporary", max_tokens = 100000 }
[stages.split]
mode = "fan_out"
worker_stage = "work"
max_workers = ${opts.maxWorkers}
results_region = "results"
[stages.work]
allow_as_worker = true
`;
  const loaded = loadBlueprintFromString(toml, process.cwd(), 'fanout-bench.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

async function history(client: Client, workflowId: string): Promise<{ events: number; bytes: number }> {
  const h = await client.workflow.getHandle(workflowId).fetchHistory();
  return { events: h.events?.length ?? 0, bytes: proto.temporal.api.history.v1.History.encode(h).finish().length };
}

/** `--dissect`: where a history's bytes go, per event type, and the largest payloads of one event of each type. */
async function dissect(client: Client, workflowId: string): Promise<void> {
  const h = await client.workflow.getHandle(workflowId).fetchHistory();
  const { HistoryEvent } = proto.temporal.api.history.v1;
  const types = proto.temporal.api.enums.v1.EventType;
  const by = new Map<string, { n: number; bytes: number; sample: string }>();
  for (const e of h.events ?? []) {
    const type = String(types[e.eventType ?? 0]).replace('EVENT_TYPE_', '');
    const bytes = HistoryEvent.encode(e).finish().length;
    const row = by.get(type) ?? { n: 0, bytes: 0, sample: '' };
    row.n++;
    row.bytes += bytes;
    if (!row.sample)
      row.sample = JSON.stringify(HistoryEvent.toObject(e as proto.temporal.api.history.v1.HistoryEvent), (k, v) =>
        k === 'data' && v?.type === 'Buffer' ? Buffer.from(v.data).toString() : v,
      );
    by.set(type, row);
  }
  process.stdout.write(
    `\n${workflowId}: bytes by event type\n| event | count | bytes | bytes/event |\n|---|---|---|---|\n`,
  );
  for (const [type, r] of [...by].sort((a, b) => b[1].bytes - a[1].bytes))
    process.stdout.write(`| ${type} | ${r.n} | ${r.bytes} | ${(r.bytes / r.n).toFixed(0)} |\n`);
  for (const [type, r] of by) process.stdout.write(`\n${type}: ${r.sample.slice(0, 4000)}\n`);
  const t0 = Number(h.events?.[0]?.eventTime?.seconds ?? 0) * 1000 + (h.events?.[0]?.eventTime?.nanos ?? 0) / 1e6;
  process.stdout.write(`\n${workflowId}: timeline (ms from its start)\n`);
  for (const e of h.events ?? []) {
    const at = Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6 - t0;
    // What the event is about: an activity's type, or the search attributes an upsert sets.
    const upserted = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    const about =
      e.activityTaskScheduledEventAttributes?.activityType?.name ?? (upserted ? Object.keys(upserted).join(',') : '');
    process.stdout.write(
      `${at.toFixed(0).padStart(6)} ${String(types[e.eventType ?? 0]).replace('EVENT_TYPE_', '')} ${about}\n`,
    );
  }
}

export default async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const bench = await startBenchServer('fanout', {
    memory: opts.memory,
    extraArgs: opts.serverFlags,
    sqlitePragmas: opts.pragmas,
  });
  const { tmp, server, client } = bench;
  const taskQueue = `fanout-${Date.now()}`;
  const profileDir = join(tmp, 'profile');
  const worker = await startWorkerProcess(bench, { taskQueue, env: {}, ...(opts.profile ? { profileDir } : {}) });
  const pid = worker.pid;
  await new Promise((r) => setTimeout(r, 3000));
  const idle = rssMb(pid);

  const rows: Record<string, string>[] = [];
  try {
    for (const n of opts.sizes) {
      const file = join(tmp, `script-${n}.toml`);
      writeFileSync(file, script(n, opts));
      const bp = blueprint(`scripted:${file}`, opts);
      const meter = new Meter(() => [pid]);
      const runId = `fanout-${n}-${Date.now()}`;
      const serverMeter = new Meter(() => withChildren(server.child.pid as number));
      const cpu0 = { worker: meter.cpu(), server: serverMeter.cpu() };
      const started = Date.now();
      const handle = await startRun(
        client,
        { blueprint: bp, task: `Fan out ${n} items.`, caller: {}, workdir: tmp, options: DEFAULT_RUN_OPTIONS },
        { taskQueue, workflowId: runId },
      );
      const result = await followRun(client, handle, () => {}, 500);
      const wallS = (Date.now() - started) / 1000;
      const cpu = { worker: meter.cpu() - cpu0.worker, server: serverMeter.cpu() - cpu0.server };
      meter.stop();
      serverMeter.stop();
      const waves = opts.maxWorkers > 0 ? Math.ceil(n / opts.maxWorkers) : 1;
      const idealS = (waves * opts.calls * opts.latencyMs) / 1000;
      // The workers' parents: the visit, and past 500 items the shards it starts.
      const visit = await history(client, `${runId}.1.split`);
      if (opts.dissect) {
        // The run (its start before the visit, its end after), the visit that starts the workers,
        await dissect(client, runId);
        await dissect(client, `${runId}.1.split`);
        // and a worker from the middle, past the first wave's crowd of starts; its stage visit runs
        // inside its run (docs/reference/sub-agents.md#one-workflow-per-worker).
        await dissect(client, `${runId}/item-${Math.ceil(n / 2)}`);
      }
      const shards = { events: 0, bytes: 0, count: 0 };
      for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${runId}/~shard-'` })) {
        const h = await history(client, wf.workflowId);
        shards.events += h.events;
        shards.bytes += h.bytes;
        shards.count++;
      }
      const parent = { events: visit.events + shards.events, bytes: visit.bytes + shards.bytes };
      const top = await history(client, runId);
      // How long each worker lived against its own ideal (calls × latency): the rest is overhead.
      let lives = 0;
      let workers = 0;
      for await (const wf of client.workflow.list({ query: `LeviathParent = '${runId}'` })) {
        if (!wf.closeTime) continue;
        lives += wf.closeTime.getTime() - wf.startTime.getTime();
        workers++;
      }
      rows.push({
        N: String(n),
        max_workers: String(opts.maxWorkers),
        'wall s': wallS.toFixed(1),
        'ideal s': idealS.toFixed(1),
        ratio: (wallS / idealS).toFixed(2),
        shards: String(shards.count),
        'parent events': String(parent.events),
        'parent bytes': String(parent.bytes),
        'parent bytes/item': (parent.bytes / n).toFixed(0),
        'run events/bytes': `${top.events}/${top.bytes}`,
        'worker life s': workers > 0 ? (lives / workers / 1000).toFixed(2) : '-',
        'CPU s worker/server': `${(cpu.worker / 1000).toFixed(1)}/${(cpu.server / 1000).toFixed(1)}`,
        // How busy the two kept the machine: near 100 % the steps of each worker wait for a core.
        'CPU % of machine': ((100 * (cpu.worker + cpu.server)) / (wallS * 1000 * availableParallelism())).toFixed(0),
        'worker RSS idle/peak MB': `${idle.toFixed(0)}/${meter.peak.toFixed(0)}`,
        status: result.status,
      });
      process.stderr.write(`fanout ${n}: ${result.status} in ${wallS.toFixed(1)} s\n`);
    }
  } finally {
    await worker.stop();
    await bench.close();
  }
  if (opts.profile) process.stdout.write(`worker CPU profile: ${profileDir}\n`);
  const keys = Object.keys(rows[0] ?? {});
  process.stdout.write(`| ${keys.join(' | ')} |\n|${keys.map(() => '---').join('|')}|\n`);
  for (const row of rows) process.stdout.write(`| ${Object.values(row).join(' | ')} |\n`);
  process.stdout.write(
    `\n${opts.calls} scripted calls of ${opts.latencyMs} ms per worker; worker life is the mean time from a worker's start to its end; CPU % of machine is the worker's and the server's CPU time over wall time × ${availableParallelism()} cores; the parents are the stage visit that starts the workers (\`<run>.1.split\`) and, past 500 items, its shards (\`<run>/~shard-n\`).\n`,
  );
}

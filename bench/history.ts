/**
 * `npm run bench -- history [turns]`: workflow history per turn of a
 * scripted run reading 100 KB files into a compacting region, at 32k and
 * 200k windows, against the naive loop in `bench/naive/` that passes the
 * whole prompt to the activity every turn. Starts its own dev server.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, WorkflowFailedError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { loadBlueprintFromString } from '../src/blueprint/load.js';
import { registerScript } from '../src/providers/index.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { createWorker } from '../src/worker/create-worker.js';
import { followRun, startRun } from '../src/worker/run-client.js';
import { bigFile, startBenchServer } from './kit.js';
import * as naiveActivities from './naive/activities.js';

const ACTIVITY_COMPLETED = proto.temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED;

async function historySize(
  client: Client,
  query: string,
): Promise<{ events: number; bytes: number; runs: number; activities: number }> {
  let events = 0;
  let bytes = 0;
  let runs = 0;
  let activities = 0;
  for await (const wf of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    events += history.events?.length ?? 0;
    activities += (history.events ?? []).filter((e) => e.eventType === ACTIVITY_COMPLETED).length;
    bytes += proto.temporal.api.history.v1.History.encode(history).finish().length;
    runs++;
  }
  return { events, bytes, runs, activities };
}

function blueprint(model: string, window: number) {
  const toml = `
[agent]
name = "history-bench"
model = "${model}"
[models."${model}"]
context_window = ${window}
[context.regions]
task     = { kind = "pinned", budget = "2%" }
codebase = { kind = "compacting", budget = "40%", max_tokens = 400000 }
history  = { kind = "compact_history", budget = "5%", source_region = "codebase" }
conversation = { kind = "sliding_window", budget = "10%", max_tokens = 100000, max_items = 20 }
[stages.main]
available_tools = ["read_file"]
max_iterations = 100000
[stages.main.tool_routing]
default_region = "codebase"
max_result_tokens = ${Math.floor(window * 0.15)}
`;
  const loaded = loadBlueprintFromString(toml, process.cwd(), 'history-bench.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

export default async function run(args: string[]): Promise<void> {
  const turns = Number(args[0] ?? 200);
  // The naive loop's histories run to many megabytes; the client reads them back whole.
  const bench = await startBenchServer('history', { maxReceiveBytes: 512 * 1024 * 1024 });
  const { tmp, server, client } = bench;
  const workdir = join(tmp, 'work');
  const file = join(tmp, 'big.txt');
  const text = bigFile();
  writeFileSync(file, text);
  mkdirSync(workdir);
  writeFileSync(join(workdir, 'big.txt'), text);
  process.env.LEVIATH_BENCH_FILE = file;

  const ours = await createWorker({
    address: server.address,
    taskQueue: 'bench-ours',
    runtime: { blobDir: join(tmp, 'blobs'), env: process.env },
  });
  const naiveConnection = await NativeConnection.connect({ address: server.address });
  const naive = await Worker.create({
    connection: naiveConnection,
    taskQueue: 'bench-naive',
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: new URL('./naive/workflow.ts', import.meta.url).pathname,
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    }),
    activities: naiveActivities,
  });
  const running = [ours.worker.run(), naive.run()];

  const rows: string[][] = [];
  try {
    for (const window of [32_000, 200_000]) {
      const model = `scripted:history-bench-${window}`;
      registerScript(model.slice('scripted:'.length), {
        turns: [
          ...Array.from({ length: turns }, (_, i) => ({
            text: `Reading pass ${i + 1}.`,
            tool_calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }],
          })),
          { text: 'Done.' },
        ],
      });
      const handle = await startRun(
        client,
        {
          blueprint: blueprint(model, window),
          task: 'Read big.txt again and again.',
          caller: {},
          workdir,
          options: DEFAULT_RUN_OPTIONS,
        },
        { taskQueue: 'bench-ours' },
      );
      const result = await followRun(client, handle, () => {});
      if (result.status !== 'completed') throw new Error(`bench run failed: ${result.error}`);
      const mine = await historySize(
        client,
        `WorkflowId = '${handle.workflowId}' OR WorkflowId STARTS_WITH '${handle.workflowId}.'`,
      );

      const naiveId = `naive-${window}-${Date.now()}`;
      let naiveEnd = 'completed';
      try {
        await client.workflow.execute('naiveLoopWorkflow', {
          taskQueue: 'bench-naive',
          workflowId: naiveId,
          args: [turns, window * 4],
        });
      } catch (err) {
        // Temporal terminates a history past its size limit: the failure this design avoids.
        naiveEnd = `terminated: ${err instanceof WorkflowFailedError ? (err.cause?.message ?? err.message) : String(err)}`;
      }
      const flat = await historySize(client, `WorkflowId = '${naiveId}'`);
      const naiveTurns = Math.max(1, Math.floor(flat.activities / 2));

      rows.push([
        `${window / 1000}k`,
        String(turns),
        (mine.events / turns).toFixed(1),
        Math.round(mine.bytes / turns).toLocaleString('en-US'),
        String(mine.runs),
        String(naiveTurns),
        (flat.events / naiveTurns).toFixed(1),
        Math.round(flat.bytes / naiveTurns).toLocaleString('en-US'),
        `${(flat.bytes / naiveTurns / (mine.bytes / turns)).toFixed(1)}×`,
        naiveEnd,
      ]);
    }
  } finally {
    ours.worker.shutdown();
    naive.shutdown();
    await Promise.all(running);
    await ours.connection.close();
    await naiveConnection.close();
    await bench.close();
    rmSync(tmp, { recursive: true, force: true });
  }

  const header = [
    'window',
    'turns',
    'ours events/turn',
    'ours bytes/turn',
    'ours runs',
    'naive turns',
    'naive events/turn',
    'naive bytes/turn',
    'naive ÷ ours (bytes/turn)',
    'naive run',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  process.stdout.write(
    `\nWorkflow history per turn (100 KB tool result every turn; bytes are the binary protobuf history)\n\n`,
  );
  process.stdout.write(
    `${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}\n`,
  );
}

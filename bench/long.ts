/**
 * `npm run bench -- long [turns] [--window tokens]` (issue 13 runs `long 1000 --window 200000`):
 * one scripted agent on one `lev worker` process reads a 100 KB file every turn into a
 * compacting region, folded into a history region, for `turns` turns, then answers. Prints
 * wall time, CPU per turn of the worker and the dev server, how often the stage workflow
 * continued as new, history events and bytes per turn over the whole chain, and peak memory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBlueprint } from '../src/blueprint/load.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { runOutcome, startRun } from '../src/worker/run-client.js';
import {
  bigFile,
  historyTotals,
  Meter,
  numberArg,
  printRow,
  startBenchServer,
  startWorkerProcess,
  withChildren,
} from './kit.js';

function script(turns: number): string {
  const turn = (i: number) =>
    `[[turns]]\ntext = "Reading pass ${i + 1}."\n[[turns.tool_calls]]\nname = "read_file"\narguments = { path = "big.txt" }\n`;
  return `${Array.from({ length: turns }, (_, i) => turn(i)).join('\n')}\n[[turns]]\ntext = "Finished reading."\n`;
}

function blueprintToml(window: number): string {
  return `
[agent]
name = "long-reader"
model = "scripted:script.toml"

[models."scripted:script.toml"]
context_window = ${window}

[context.regions]
task     = { kind = "pinned", budget = "2%" }
codebase = { kind = "compacting", budget = "20%", max_tokens = 60000 }
history  = { kind = "compact_history", budget = "5%", source_region = "codebase" }
conversation = { kind = "sliding_window", budget = "10%", max_tokens = 30000, max_items = 20 }

[stages.main]
available_tools = ["read_file"]
max_iterations = 100000
[stages.main.tool_routing]
default_region = "codebase"
`;
}

export default async function run(args: string[]): Promise<void> {
  let turns = 1000;
  let window = 200_000;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--window') window = Math.floor(numberArg(args, ++i, '--window'));
    else turns = Math.max(1, Math.floor(numberArg(args, i, 'turns')));
  }
  const bench = await startBenchServer('long');
  const dir = join(bench.tmp, 'agent');
  const workdir = join(bench.tmp, 'work');
  mkdirSync(dir);
  mkdirSync(workdir);
  writeFileSync(join(dir, 'agent.toml'), blueprintToml(window));
  writeFileSync(join(dir, 'script.toml'), script(turns));
  writeFileSync(join(workdir, 'big.txt'), bigFile());
  const loaded = loadBlueprint(dir);
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));

  const taskQueue = `long-${Date.now()}`;
  const worker = await startWorkerProcess(bench, { taskQueue, env: {} });
  const serverMeter = new Meter(() => withChildren(bench.server.child.pid!));
  const workerMeter = new Meter(() => [worker.pid]);
  const cpu0 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  const workflowId = `long-${Date.now()}`;
  const started = Date.now();
  const handle = await startRun(
    bench.client,
    {
      blueprint: loaded.blueprint,
      task: 'Read big.txt again and again.',
      caller: {},
      workdir,
      options: DEFAULT_RUN_OPTIONS,
    },
    { taskQueue, workflowId },
  );
  const result = await runOutcome(handle);
  const wallS = (Date.now() - started) / 1000;
  const cpu1 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  const history = await historyTotals(bench.client, workflowId);
  let stageRuns = 0;
  for await (const _ of bench.client.workflow.list({ query: `WorkflowId = '${workflowId}.1.main'` })) stageRuns++;
  const inferences = result.usage.calls;

  printRow({
    turns,
    window,
    status: result.status,
    'wall s': wallS.toFixed(1),
    'worker CPU ms/turn': ((cpu1.worker - cpu0.worker) / inferences).toFixed(1),
    'server CPU ms/turn': ((cpu1.server - cpu0.server) / inferences).toFixed(1),
    'continue-as-new': Math.max(0, stageRuns - 1),
    'events/turn': (history.events / inferences).toFixed(1),
    'history bytes/turn': (history.bytes / inferences).toFixed(0),
    'worker peak MB': workerMeter.peak.toFixed(0),
    'server peak MB': serverMeter.peak.toFixed(0),
  });
  if (result.status !== 'completed') process.stdout.write(`the run did not complete: ${result.error}\n`);
  workerMeter.stop();
  serverMeter.stop();
  await worker.stop();
  await bench.close();
}

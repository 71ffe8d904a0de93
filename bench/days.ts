/**
 * `npm run bench -- days [--days 30] [--turn-secs 20] [--messages-per-day 24] [--history-events N]`:
 * drives a run's report and update traffic for a wall-clock span and prints the events in the run
 * workflow per simulated day and how often it continued as new
 * (docs/reference/long-runs.md#the-run-continues-as-new).
 *
 * One scripted agent on one `lev worker` process runs real turns (a `current_time` call each,
 * 300 ms apiece), and its visit reports to its run as usual. On top of that the bench sends the run
 * the traffic a visit of `--turn-secs` turns and people make in a day: one `stage-report` signal,
 * as the visit sends it, per simulated turn (a turn of 10 s or more reports every time), each one
 * answered by a `progress` query so that it takes a workflow task of its own as a report a real
 * visit sends does; and `--messages-per-day` `message` updates, which the visit writes into the
 * conversation. A simulated day is 86,400 / `--turn-secs` reports. Goal: no history of the run
 * workflow over 10k events for 30 simulated days. `--history-events` sets the run's
 * `runHistoryEvents` (default 4,000), for a smoke run that continues as new at a small size.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, QueryNotRegisteredError, type WorkflowHandle } from '@temporalio/client';
import { loadBlueprint } from '../src/blueprint/load.js';
import { NO_WAITS, type Progress, type StageReport, type VisitCounters } from '../src/runtime/index.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { startRun } from '../src/worker/run-client.js';
import { numberArg, startBenchServer, startWorkerProcess } from './kit.js';

const BLUEPRINT = `
[agent]
name = "days"
model = "scripted:script.toml"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
conversation = { kind = "sliding_window", max_tokens = 4000, max_items = 40 }
[stages.main]
available_tools = ["current_time"]
max_iterations = 1000000
`;

const SCRIPT = `
latency_ms = 300
repeat = true
[[turns]]
text = "Checking the time again."
[[turns.tool_calls]]
name = "current_time"
arguments = {}
`;

/** The runs of the run workflow so far, the events of each, keeping the closed ones' counts. */
class Chain {
  private readonly closed = new Map<string, number>();
  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
  ) {}

  async read(): Promise<{ runs: number; total: number; largest: number; live: number }> {
    let total = 0;
    let largest = 0;
    let live = 0;
    let runs = 0;
    for await (const wf of this.client.workflow.list({ query: `WorkflowId = '${this.workflowId}'` })) {
      runs++;
      let events = this.closed.get(wf.runId);
      if (events === undefined) {
        const history = await this.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
        events = history.events?.length ?? 0;
        if (wf.status.name !== 'RUNNING') this.closed.set(wf.runId, events);
        else live = events;
      }
      total += events;
      largest = Math.max(largest, events);
    }
    return { runs, total, largest, live };
  }
}

/**
 * The run's progress. A run that has not registered its query yet (its first workflow task) is
 * asked again, and so is one whose worker did not answer in time on a loaded machine.
 */
async function progressOf(handle: WorkflowHandle): Promise<Progress> {
  for (let i = 0; ; i++) {
    try {
      return await handle.query<Progress>('progress');
    } catch (err) {
      const again = err instanceof QueryNotRegisteredError || /DEADLINE_EXCEEDED|timed out/.test(String(err));
      if (!again || i >= 100) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function countersOf(p: Progress, inferences: number, at: number): VisitCounters {
  return {
    inferences,
    visitTurns: p.visitTurns,
    usage: p.usage,
    cost: p.cost,
    regions: p.regions,
    window: p.window,
    recentCalls: p.recentCalls,
    gates: p.gates,
    at,
  };
}

export default async function run(args: string[]): Promise<void> {
  let days = 30;
  let turnSecs = 20;
  let messagesPerDay = 24;
  let historyEvents: number | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--days') days = Math.max(1, Math.floor(numberArg(args, ++i, '--days')));
    else if (args[i] === '--turn-secs') turnSecs = Math.max(1, numberArg(args, ++i, '--turn-secs'));
    else if (args[i] === '--messages-per-day') messagesPerDay = Math.floor(numberArg(args, ++i, '--messages-per-day'));
    else if (args[i] === '--history-events')
      historyEvents = Math.max(1, Math.floor(numberArg(args, ++i, '--history-events')));
    else
      throw new Error(
        `unknown argument ${args[i]}; days takes --days, --turn-secs, --messages-per-day, --history-events`,
      );
  }
  const perDay = Math.round(86_400 / turnSecs);
  const messageEvery = messagesPerDay > 0 ? Math.max(1, Math.floor(perDay / messagesPerDay)) : 0;

  const bench = await startBenchServer('days', { memory: true });
  const dir = join(bench.tmp, 'agent');
  const workdir = join(bench.tmp, 'work');
  mkdirSync(dir);
  mkdirSync(workdir);
  writeFileSync(join(dir, 'agent.toml'), BLUEPRINT);
  writeFileSync(join(dir, 'script.toml'), SCRIPT);
  const loaded = loadBlueprint(dir);
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  const taskQueue = `days-${Date.now()}`;
  const worker = await startWorkerProcess(bench, { taskQueue, env: {} });
  const workflowId = `days-${Date.now()}`;
  const handle = await startRun(
    bench.client,
    {
      blueprint: loaded.blueprint,
      task: 'Keep checking the time.',
      caller: {},
      workdir,
      options: { ...DEFAULT_RUN_OPTIONS, ...(historyEvents ? { runHistoryEvents: historyEvents } : {}) },
    },
    { taskQueue, workflowId },
  );
  const chain = new Chain(bench.client, workflowId);
  let progress = await progressOf(handle);
  for (let i = 0; i < 100 && progress.regions.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    progress = await progressOf(handle);
  }

  process.stdout.write(
    `days: ${days} simulated days, a ${turnSecs} s turn (${perDay} reports a day), ${messagesPerDay} messages a day\n\n`,
  );
  process.stdout.write(
    '| day | events that day | continue-as-new so far | largest run history | live run history | wall s |\n|---|---|---|---|---|---|\n',
  );
  const started = Date.now();
  let before = (await chain.read()).total;
  let largestEver = 0;
  let sent = 0;
  for (let day = 1; day <= days; day++) {
    for (let i = 0; i < perDay; i++) {
      sent++;
      if (messageEvery > 0 && sent % messageEvery === 0)
        await handle.executeUpdate('message', { args: [`Note ${sent}: keep an eye on the clock.`] });
      const report: StageReport<never> = {
        kind: 'waits',
        waits: NO_WAITS,
        counters: countersOf(progress, progress.inferences + sent, Date.now()),
      };
      await handle.signal('stage-report', report);
      // The answer comes once the run has taken the report: one workflow task per report.
      progress = await progressOf(handle);
    }
    const now = await chain.read();
    largestEver = Math.max(largestEver, now.largest);
    process.stdout.write(
      `| ${day} | ${now.total - before} | ${now.runs - 1} | ${now.largest} | ${now.live} | ${((Date.now() - started) / 1000).toFixed(0)} |\n`,
    );
    before = now.total;
  }
  const end = await chain.read();
  process.stdout.write(
    `\n${end.runs - 1} continue-as-new over ${days} simulated days; largest history of one run ${largestEver} events (goal: under 10,000); ${end.total} events in all.\n`,
  );
  await handle.cancel();
  await handle.result().catch(() => {});
  await worker.stop();
  await bench.close();
}

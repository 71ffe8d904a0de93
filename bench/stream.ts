/**
 * `npm run bench -- stream [turns] [latency-ms]`: what a run's event stream
 * and token channel cost (docs/reference/events.md#what-it-costs). Two
 * scripted runs of the same turns on a dev server of its own: one nobody
 * reads, one a `subscribeRun` subscriber with `tokens` follows from its
 * start. Prints history events and bytes per turn of each (with the events
 * whose attributes could carry heartbeat details: timeouts), the server's CPU
 * per turn, and token-to-subscriber latency: each piece of the scripted
 * reply is handed to the activity at a known time (the call's end, recorded
 * by the provider, less the pieces' shares of its latency), and the
 * subscriber notes when the delta that holds it arrives. Timings printed,
 * never asserted.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { loadBlueprintFromString } from '../src/blueprint/load.js';
import { registerScript } from '../src/providers/index.js';
import { STREAM_PIECES } from '../src/providers/scripted.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { subscribeRun } from '../src/stream/subscribe.js';
import { createWorker } from '../src/worker/create-worker.js';
import { startRun } from '../src/worker/run-client.js';
import { historyTotals, Meter, numberArg, startBenchServer, withChildren } from './kit.js';
import { pieceEnds, pieceTimes, quantile } from './piece-times.js';

const REPLY = 'Reading the next file now, then I will compare it with what the plan region says. '.repeat(3);

function blueprint(model: string) {
  const toml = `[agent]\nname = "stream-bench"\n[stages.main]\nmodel = "${model}"\navailable_tools = ["current_time"]\nmax_iterations = 10000\n`;
  const loaded = loadBlueprintFromString(toml, process.cwd(), 'stream-bench.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

async function oneRun(client: Client, taskQueue: string, model: string, workdir: string, id: string) {
  return startRun(
    client,
    { blueprint: blueprint(model), task: 'Work through the files.', caller: {}, workdir, options: DEFAULT_RUN_OPTIONS },
    { taskQueue, workflowId: id },
  );
}

export default async function run(args: string[]): Promise<void> {
  const turns = args[0] !== undefined ? numberArg(args, 0, 'turns') : 20;
  const latency = args[1] !== undefined ? numberArg(args, 1, 'latency-ms') : 2000;
  const bench = await startBenchServer('stream');
  const { tmp, server, client } = bench;
  const workdir = join(tmp, 'work');
  mkdirSync(workdir);
  const log = join(tmp, 'scripted.jsonl');
  process.env.LEVIATH_SCRIPTED_LOG = log;
  const ours = await createWorker({
    address: server.address,
    taskQueue: 'bench-stream',
    runtime: { blobDir: join(tmp, 'blobs'), env: process.env },
  });
  const running = ours.worker.run();
  const serverMeter = new Meter(() => withChildren(server.child.pid!));
  const model = 'scripted:stream-bench';
  registerScript('stream-bench', {
    latency_ms: latency,
    turns: [
      ...Array.from({ length: turns }, () => ({ text: REPLY, tool_calls: [{ name: 'current_time', arguments: {} }] })),
      { text: 'Done.' },
    ],
  });
  const rows: Record<string, string>[] = [];
  const latencies: number[] = [];
  let piecesSeen = 0;
  let piecesSent = 0;
  try {
    for (const subscribed of [false, true]) {
      const id = `stream-${subscribed ? 'read' : 'unread'}-${Date.now()}`;
      const cpuBefore = serverMeter.cpu();
      const handle = await oneRun(client, 'bench-stream', model, workdir, id);
      const arrivals: { turn: number; end: number; at: number }[] = [];
      if (subscribed) {
        for await (const item of subscribeRun(client, id, { tokens: true, from: 0 }))
          if (item.kind === 'text') arrivals.push({ turn: item.turn, end: item.at + item.text.length, at: Date.now() });
      }
      await handle.result();
      const cpu = serverMeter.cpu() - cpuBefore;
      const totals = await historyTotals(client, id);
      const timeouts = await timedOut(client, id);
      rows.push({
        subscriber: subscribed ? 'subscribeRun, tokens' : 'none',
        turns: String(turns + 1),
        'events/turn': (totals.turnEvents / (turns + 1)).toFixed(2),
        'bytes/turn': Math.round(totals.turnBytes / (turns + 1)).toLocaleString('en-US'),
        'events in all': String(totals.events),
        'timed-out activities': String(timeouts),
        'server CPU ms/turn': (cpu / (turns + 1)).toFixed(1),
      });
      if (subscribed) {
        const sent = pieceTimes(log, id, latency);
        const ends = pieceEnds(REPLY);
        for (const [turn, times] of sent) {
          // The last piece ends the call; the turn's end, not a delta, brings it.
          piecesSent += STREAM_PIECES - 1;
          for (let i = 0; i < STREAM_PIECES - 1; i++) {
            const got = arrivals.find((a) => a.turn === turn && a.end >= ends[i]!);
            if (!got) continue;
            piecesSeen += 1;
            latencies.push(got.at - times[i]!);
          }
        }
      }
    }
  } finally {
    serverMeter.stop();
    ours.worker.shutdown();
    await running;
    await ours.connection.close();
    await bench.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  const keys = Object.keys(rows[0]!);
  process.stdout.write(
    `\nHistory and server CPU per turn (${latency} ms turns, ${REPLY.length}-character replies)\n\n`,
  );
  process.stdout.write(`| ${keys.join(' | ')} |\n|${keys.map(() => '---').join('|')}|\n`);
  for (const row of rows) process.stdout.write(`| ${Object.values(row).join(' | ')} |\n`);
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `\nToken to subscriber: ${piecesSeen} of ${piecesSent} pieces seen as deltas before their turn ended; median ${quantile(latencies, 0.5).toFixed(0)} ms, p90 ${quantile(latencies, 0.9).toFixed(0)} ms, max ${(latencies.at(-1) ?? Number.NaN).toFixed(0)} ms\n`,
  );
}

/** Activities of the run's workflows that timed out: the one way heartbeat details (text so far) reach history. */
async function timedOut(client: Client, prefix: string): Promise<number> {
  let n = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    n += (history.events ?? []).filter((e) => e.activityTaskTimedOutEventAttributes).length;
  }
  return n;
}

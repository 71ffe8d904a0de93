/**
 * `npm run bench -- burst N [--latency ms] [--append-kb 25] [--turns 12] [--profile]`:
 * N agents at once against one worker process, answered by a local fake
 * OpenAI-compatible model that waits a fixed latency and replies with one
 * `context_append` of the given size until the last turn. Prints one row:
 * drain time against the ideal (turns × latency), CPU per turn of the worker
 * and of the Temporal dev server (from /proc/<pid>/stat), their idle and
 * peak RSS, and history events and bytes per turn. `--profile` writes a
 * `--cpu-prof` of the worker into the bench folder.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { loadBlueprintFromString } from '../src/blueprint/load.js';
import { startDevServer } from '../src/devserver/dev-server.js';
import { freePort } from '../src/devserver/net.js';
import { findTemporalCli } from '../src/devserver/temporal-cli.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { runOutcome, startRun } from '../src/worker/client.js';

interface Options {
  agents: number;
  latencyMs: number;
  appendKb: number;
  turns: number;
  profile: boolean;
}

function parseArgs(args: string[]): Options {
  const opts: Options = { agents: 8, latencyMs: 500, appendKb: 25, turns: 12, profile: false };
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const v = Number(args[++i]);
      if (!Number.isFinite(v) || v < 0) throw new Error(`${arg} needs a non-negative number`);
      return v;
    };
    if (arg === '--latency') opts.latencyMs = value();
    else if (arg === '--append-kb') opts.appendKb = value();
    else if (arg === '--turns') opts.turns = Math.max(1, Math.floor(value()));
    else if (arg === '--profile') opts.profile = true;
    else positional.push(arg);
  }
  if (positional[0] !== undefined) opts.agents = Math.max(1, Math.floor(Number(positional[0])));
  if (!Number.isFinite(opts.agents)) throw new Error('usage: npm run bench -- burst N [--latency ms] ...');
  return opts;
}

/** Filler text of about `kb` kilobytes: words, so token counts look like prose. */
function appendText(kb: number, turn: number): string {
  const words = ['ledger', 'billing', 'request', 'latency', 'pool', 'retry', 'charge', 'status', 'upstream'];
  let out = `Notes from turn ${turn}:`;
  for (let i = 0; out.length < kb * 1024; i++) out += ` ${words[i % words.length]}-${i}`;
  return out.slice(0, kb * 1024);
}

/**
 * The fake model: every turn of an agent but its last appends to `notes`.
 */
function startModel(opts: Options): Promise<{ server: Server; calls: () => number }> {
  let calls = 0;
  const turnsSeen = new Map<string, number>();
  const bodies = new Map<number, string>();
  const body = (turn: number) => {
    let text = bodies.get(turn);
    if (text === undefined) {
      text = appendText(opts.appendKb, turn);
      bodies.set(turn, text);
    }
    return text;
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      calls++;
      // The conversation window may drop old turns, so count calls per agent (named in the task) instead.
      const agent = /Burst agent (\d+)\./.exec(raw)?.[1] ?? '?';
      const turn = turnsSeen.get(agent) ?? 0;
      turnsSeen.set(agent, turn + 1);
      const last = turn + 1 >= opts.turns;
      const message = last
        ? { role: 'assistant', content: 'Done.' }
        : {
            role: 'assistant',
            content: `Turn ${turn + 1}.`,
            tool_calls: [
              {
                id: `call_${turn}`,
                type: 'function',
                function: {
                  name: 'context_append',
                  arguments: JSON.stringify({ region: 'notes', content: body(turn) }),
                },
              },
            ],
          };
      const reply = JSON.stringify({
        id: `chatcmpl-${calls}`,
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [{ index: 0, message, finish_reason: last ? 'stop' : 'tool_calls' }],
        usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 },
      });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(reply);
      }, opts.latencyMs);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, calls: () => calls })));
}

const CLOCK_TICKS = 100;

/** CPU time (user + system) of a process and all its live threads, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // Fields after the command: state is index 0, so utime is 11 and stime 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.replace(/\D+/g, '')) / 1024 : 0;
}

/** The process and its descendants (the dev server's `temporal` may sit under a wrapper). */
function withChildren(pid: number): number[] {
  const out = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.split(') ')[1]!.split(' ')[1]);
      if (ppid === pid) out.push(...withChildren(Number(entry)));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

class Meter {
  peak = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(private readonly pids: () => number[]) {
    this.timer = setInterval(() => {
      this.peak = Math.max(this.peak, this.rss());
    }, 100);
  }
  rss(): number {
    return this.pids().reduce((sum, pid) => sum + rssMb(pid), 0);
  }
  cpu(): number {
    return this.pids().reduce((sum, pid) => sum + cpuMs(pid), 0);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

async function waitForLine(child: ReturnType<typeof spawn>, pattern: RegExp): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (pattern.test(seen)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => {
      seen += d.toString();
    });
    child.once('exit', (code) =>
      reject(new Error(`worker exited (${code}) before it was ready:\n${seen.slice(-2000)}`)),
    );
  });
}

async function historyTotals(client: Client, prefix: string): Promise<{ events: number; bytes: number }> {
  let events = 0;
  let bytes = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    events += history.events?.length ?? 0;
    bytes += proto.temporal.api.history.v1.History.encode(history).finish().length;
    if (process.env.BENCH_DUMP)
      (await import('node:fs')).writeFileSync(
        `${process.env.BENCH_DUMP}/${wf.workflowId}.bin`,
        proto.temporal.api.history.v1.History.encode(history).finish(),
      );
  }
  return { events, bytes };
}

function blueprint(opts: Options) {
  const toml = `
[agent]
name = "burst-bench"
model = "openai:gpt-4o"
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 60000 }
conversation = { kind = "sliding_window", max_tokens = 20000, max_items = 20 }
[stages.main]
available_tools = ["context_append"]
max_iterations = ${opts.turns + 2}
`;
  const loaded = loadBlueprintFromString(toml, process.cwd(), 'burst-bench.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

export default async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const tmp = mkdtempSync(join(tmpdir(), 'leviath-bench-burst-'));
  const model = await startModel(opts);
  const baseURL = `http://127.0.0.1:${(model.server.address() as AddressInfo).port}/v1`;

  const cli = await findTemporalCli({ log: (l) => process.stderr.write(`${l}\n`) });
  const server = await startDevServer({
    cli,
    dbFile: join(tmp, 'temporal.sqlite'),
    port: await freePort(),
    uiPort: await freePort(),
    headless: true,
  });
  const serverPid = server.child.pid!;
  const taskQueue = `burst-${Date.now()}`;
  mkdirSync(join(tmp, 'home'));
  const worker = spawn(
    process.execPath,
    [
      ...(opts.profile ? ['--cpu-prof', '--cpu-prof-dir', join(tmp, 'profile')] : []),
      new URL('../bin/lev.mjs', import.meta.url).pathname,
      'worker',
      '--address',
      server.address,
      '--task-queue',
      taskQueue,
    ],
    {
      env: { ...process.env, LEVIATH_HOME: join(tmp, 'home'), OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-bench' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await waitForLine(worker, /worker polling/);
  const workerPid = worker.pid!;
  const serverMeter = new Meter(() => withChildren(serverPid));
  const workerMeter = new Meter(() => [workerPid]);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });

  // Let start-up work settle before reading the idle figures.
  await new Promise((r) => setTimeout(r, 3000));
  const idle = { worker: workerMeter.rss(), server: serverMeter.rss() };
  const cpu0 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  const prefix = `burst-${Date.now()}`;
  const bp = blueprint(opts);
  const started = Date.now();
  const handles = await Promise.all(
    Array.from({ length: opts.agents }, (_, i) =>
      startRun(
        client,
        { blueprint: bp, task: `Burst agent ${i}.`, caller: {}, workdir: tmp, options: DEFAULT_RUN_OPTIONS },
        { taskQueue, workflowId: `${prefix}-${i}` },
      ),
    ),
  );
  // Waits on each result, as a deployment's client does; nobody polls progress, so the figures are the runs' own.
  const results = await Promise.all(handles.map((h) => runOutcome(h)));
  const drainS = (Date.now() - started) / 1000;
  const cpu1 = { worker: workerMeter.cpu(), server: serverMeter.cpu() };
  const failed = results.filter((r) => r.status !== 'completed');
  const turns = opts.agents * opts.turns;
  const history = await historyTotals(client, prefix);
  const idealS = (opts.turns * opts.latencyMs) / 1000;

  const row = {
    N: opts.agents,
    'drain s': drainS.toFixed(2),
    'ideal s': idealS.toFixed(2),
    ratio: (drainS / idealS).toFixed(2),
    'worker CPU ms/turn': ((cpu1.worker - cpu0.worker) / turns).toFixed(1),
    'server CPU ms/turn': ((cpu1.server - cpu0.server) / turns).toFixed(1),
    'worker RSS idle/peak MB': `${idle.worker.toFixed(0)}/${workerMeter.peak.toFixed(0)}`,
    'server RSS idle/peak MB': `${idle.server.toFixed(0)}/${serverMeter.peak.toFixed(0)}`,
    'events/turn': (history.events / turns).toFixed(1),
    'history bytes/turn': (history.bytes / turns).toFixed(0),
    'model calls': model.calls(),
  };
  process.stdout.write(
    `| ${Object.keys(row).join(' | ')} |\n|${Object.keys(row)
      .map(() => '---')
      .join('|')}|\n`,
  );
  process.stdout.write(`| ${Object.values(row).join(' | ')} |\n`);
  if (failed.length > 0) process.stdout.write(`${failed.length} runs did not complete: ${failed[0]?.error}\n`);

  workerMeter.stop();
  serverMeter.stop();
  await connection.close();
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  if (opts.profile) process.stdout.write(`worker CPU profile: ${join(tmp, 'profile')}\n`);
  await server.stop();
  await new Promise((r) => model.server.close(r));
}

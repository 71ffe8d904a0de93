/**
 * What the process benches (`burst`, `crash`, `long`) share: a fake
 * OpenAI-compatible model over local HTTP, a dev server and `lev worker`
 * processes of their own, and readings of CPU and memory from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { type DevServer, type DevServerOptions, startDevServer } from '../src/devserver/dev-server.js';
import { freePort } from '../src/devserver/net.js';
import { findTemporalCli } from '../src/devserver/temporal-cli.js';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../src/runtime/types.js';
import type { Blueprint } from '../src/shapes/frozen-blueprint.js';
import { startRun } from '../src/worker/run-client.js';

/** Filler text of about `kb` kilobytes: words, so token counts look like prose. */
export function appendText(kb: number, turn: number): string {
  const words = ['ledger', 'billing', 'request', 'latency', 'pool', 'retry', 'charge', 'status', 'upstream'];
  let out = `Notes from turn ${turn}:`;
  for (let i = 0; out.length < kb * 1024; i++) out += ` ${words[i % words.length]}-${i}`;
  return out.slice(0, kb * 1024);
}

/** About 100 KB of words and newlines, the file the `history` and `long` benches read every turn. */
export function bigFile(bytes = 100 * 1024): string {
  const words = ['ledger', 'billing', 'request', 'latency', 'pool', 'retry', 'charge', 'status', 'upstream', 'timeout'];
  let out = '';
  for (let i = 0; out.length < bytes; i++) out += `${words[i % words.length]}-${i} ${i % 7 === 0 ? '\n' : ''}`;
  return out.slice(0, bytes);
}

export interface Served {
  agent: string;
  turn: number;
  at: number;
}

export interface FakeModel {
  server: Server;
  baseURL: string;
  /** Every call, in the order served. */
  log: Served[];
  close(): Promise<void>;
}

/**
 * The fake model: an agent's turn `t` (read from the latest "Notes from turn"
 * the prompt shows, so a retried call is the same turn again) appends
 * `appendKb` of text to `notes`, until the last turn answers "Done.".
 */
export function startFakeModel(opts: { latencyMs: number; appendKb: number; turns: number }): Promise<FakeModel> {
  const log: Served[] = [];
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
      const agent = /Burst agent (\d+)\./.exec(raw)?.[1] ?? '?';
      let turn = 0;
      for (const m of raw.matchAll(/Notes from turn (\d+):/g)) turn = Math.max(turn, Number(m[1]) + 1);
      log.push({ agent, turn, at: Date.now() });
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
        id: `chatcmpl-${log.length}`,
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
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        log,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

/** The blueprint every burst agent runs: a pinned task, a temporary `notes` region, the conversation. */
export function burstBlueprintToml(turns: number, window?: number): string {
  return `
[agent]
name = "burst-bench"
model = "openai:gpt-4o"
${window ? `[models."openai:gpt-4o"]\ncontext_window = ${window}\nmax_output_tokens = 4096\n` : ''}
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 60000 }
conversation = { kind = "sliding_window", max_tokens = 20000, max_items = 20 }
[stages.main]
available_tools = ["context_append"]
max_iterations = ${turns + 2}
`;
}

const CLOCK_TICKS = 100;

/** CPU time (user + system) of a process and all its live threads, in ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // Fields after the command: state is index 0, so utime is 11 and stime 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.replace(/\D+/g, '')) / 1024 : 0;
}

/** The process and its descendants (the dev server's `temporal` may sit under a wrapper). */
export function withChildren(pid: number): number[] {
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

/** CPU and resident memory of a set of processes, with the peak sampled every 100 ms. */
export class Meter {
  peak = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(private readonly pids: () => number[]) {
    this.timer = setInterval(() => {
      this.peak = Math.max(this.peak, this.rss());
    }, 100);
  }
  rss(): number {
    return this.pids().reduce((sum, pid) => sum + safe(() => rssMb(pid)), 0);
  }
  cpu(): number {
    return this.pids().reduce((sum, pid) => sum + safe(() => cpuMs(pid)), 0);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

function safe(read: () => number): number {
  try {
    return read();
  } catch {
    return 0;
  }
}

export interface Bench {
  tmp: string;
  server: DevServer;
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

/** How a bench's server differs from the default: settings to try, and how its client reads. */
export interface BenchServerOptions extends Pick<DevServerOptions, 'extraArgs' | 'sqlitePragmas'> {
  /** Keep the server's database in memory instead of a file. */
  memory?: boolean;
  /** Largest reply the client reads (histories of many megabytes need more than gRPC's 4 MB). */
  maxReceiveBytes?: number;
}

/** A dev server of the bench's own (SQLite in a temporary folder) and a client of it. */
export async function startBenchServer(name: string, opts: BenchServerOptions = {}): Promise<Bench> {
  const tmp = mkdtempSync(join(tmpdir(), `leviath-bench-${name}-`));
  const cli = await findTemporalCli({ log: (l) => process.stderr.write(`${l}\n`) });
  const { memory, maxReceiveBytes, ...settings } = opts;
  const server = await startDevServer({
    cli,
    dbFile: memory ? '' : join(tmp, 'temporal.sqlite'),
    port: await freePort(),
    uiPort: await freePort(),
    headless: true,
    ...settings,
  });
  const connection = await Connection.connect({
    address: server.address,
    ...(maxReceiveBytes ? { channelArgs: { 'grpc.max_receive_message_length': maxReceiveBytes } } : {}),
  });
  const client = new Client({ connection });
  return {
    tmp,
    server,
    client,
    connection,
    async close() {
      await connection.close();
      await server.stop();
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** When it printed that it polls. */
  readyAt: number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `lev worker` in its own process, as a deployment runs it (the compiled build when it is fresh). */
export async function startWorkerProcess(
  bench: Bench,
  opts: {
    taskQueue: string;
    env: Record<string, string>;
    profileDir?: string;
    nodeFlags?: string[];
    /** What `node` runs instead of `lev worker --address A --task-queue Q` (the floor's own worker); it prints "worker polling" when ready. */
    command?: string[];
  },
): Promise<WorkerProcess> {
  const home = join(bench.tmp, 'home');
  mkdirSync(home, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      ...(opts.nodeFlags ?? []),
      ...(opts.profileDir ? ['--cpu-prof', '--cpu-prof-dir', opts.profileDir] : []),
      ...(opts.command ?? [
        new URL('../bin/lev.mjs', import.meta.url).pathname,
        'worker',
        '--address',
        bench.server.address,
        '--task-queue',
        opts.taskQueue,
      ]),
    ],
    { env: { ...process.env, LEVIATH_HOME: home, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (d: Buffer) => {
      seen += d.toString();
      if (/worker polling/.test(seen)) resolve();
    });
    child.stderr?.on('data', (d: Buffer) => {
      seen += d.toString();
    });
    child.once('exit', (code) =>
      reject(new Error(`worker exited (${code}) before it was ready:\n${seen.slice(-2000)}`)),
    );
  });
  return {
    child,
    pid: child.pid!,
    readyAt: Date.now(),
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

/**
 * Events and encoded bytes of every history whose workflow id starts with `prefix`; `turn` counts
 * from each history's first `turnsFrom` activity (each stage visit's first inference), or from
 * its start when `turnsFrom` is null.
 */
/** The activity type a local activity's marker records (`core_local_activity`, its `data` detail as JSON). */
function localActivityType(event: proto.temporal.api.history.v1.IHistoryEvent): string | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    return (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type;
  } catch {
    return undefined;
  }
}

export async function historyTotals(
  client: Client,
  prefix: string,
  turnsFrom: string | null = 'infer',
): Promise<{ events: number; bytes: number; turnEvents: number; turnBytes: number; byType: Map<string, number> }> {
  const HistoryEvent = proto.temporal.api.history.v1.HistoryEvent;
  let events = 0;
  let bytes = 0;
  let turnEvents = 0;
  let turnBytes = 0;
  const byType = new Map<string, number>();
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    let inTurns = turnsFrom === null;
    for (const event of history.events ?? []) {
      const size = HistoryEvent.encode(event).finish().length;
      events += 1;
      bytes += size;
      const type = proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
      byType.set(type, (byType.get(type) ?? 0) + 1);
      inTurns ||=
        event.activityTaskScheduledEventAttributes?.activityType?.name === turnsFrom ||
        localActivityType(event) === turnsFrom;
      if (
        inTurns &&
        !event.workflowExecutionCompletedEventAttributes &&
        !event.workflowExecutionContinuedAsNewEventAttributes
      ) {
        turnEvents += 1;
        turnBytes += size;
      }
    }
  }
  return { events, bytes, turnEvents, turnBytes, byType };
}

/**
 * Starts `agents` burst runs of `bp` on `taskQueue`, named `<prefix>-<i>`, each told `Burst agent <i>.`,
 * with the default run options but those `options` sets.
 */
export async function startAgents(
  bench: Bench,
  bp: Blueprint,
  opts: { agents: number; taskQueue: string; prefix: string; options?: Partial<RunOptions> },
): Promise<WorkflowHandle[]> {
  const options = { ...DEFAULT_RUN_OPTIONS, ...opts.options };
  return Promise.all(
    Array.from({ length: opts.agents }, (_, i) =>
      startRun(
        bench.client,
        { blueprint: bp, task: `Burst agent ${i}.`, caller: {}, workdir: bench.tmp, options },
        { taskQueue: opts.taskQueue, workflowId: `${opts.prefix}-${i}` },
      ),
    ),
  );
}

/** One markdown table row, with its header. */
export function printRow(row: Record<string, string | number>): void {
  printTable([row]);
}

/** A markdown table of rows with the same keys, the first row's keys as its header. */
export function printTable(rows: Record<string, string | number>[]): void {
  const keys = Object.keys(rows[0] ?? {});
  process.stdout.write(`| ${keys.join(' | ')} |\n|${keys.map(() => '---').join('|')}|\n`);
  for (const row of rows) process.stdout.write(`| ${keys.map((k) => row[k] ?? '').join(' | ')} |\n`);
}

export function numberArg(args: string[], i: number, flag: string): number {
  const v = Number(args[i]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${flag} needs a non-negative number`);
  return v;
}

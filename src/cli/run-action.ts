/**
 * What `lev run` does: starts the embedded Temporal dev server when none
 * answers locally, runs a worker in this process, starts the run and prints
 * every turn with one bar per region. Loaded only when `lev run` runs,
 * since the Temporal worker takes seconds to import.
 */
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadBlueprint } from '../blueprint/load.js';
import type { Blueprint } from '../blueprint/types.js';
import { type DevServer, startDevServer, temporalAnswers } from '../devserver/dev-server.js';
import { dataDir } from '../devserver/paths.js';
import { findTemporalCli } from '../devserver/temporal-cli.js';
import { LevError } from '../errors.js';
import { withLaunchOutput } from '../outputs/spec.js';
import { preflight } from '../runtime/node/seeding.js';
import { checkSandbox } from '../runtime/node/tool-context.js';
import { checkWorkdir } from '../runtime/node/workdir.js';
import { DEFAULT_RUN_OPTIONS, type Progress, type RunResult } from '../runtime/types.js';
import { followRun, startRun, withModel } from '../worker/client.js';
import { temporalTls, tlsOption } from '../worker/tls.js';
import { createToolWorker, toolQueueName } from '../worker/tool-worker.js';
import { createWorker, installRuntime } from '../worker/worker.js';
import { formatBars } from './bars.js';
import { commandHint, terminalAnswers } from './reply-prompt.js';

export interface RunFlags {
  task?: string;
  input: string[];
  model?: string;
  address: string;
  taskQueue: string;
  workdir: string;
  json?: boolean;
  seedCommands: boolean;
  id?: string;
  /** A tool queue served elsewhere (`lev worker --tools`); none means one in this process for the workdir. */
  toolQueue?: string;
  outputFormat?: string;
  outputInstructions?: string;
  /** A person attends the run (docs/reference/operators.md#attended-runs). */
  attended?: boolean;
}

function callerValues(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new LevError(
        'bad-input',
        `--input takes key=value, got "${pair}"; for example --input brief="Keep it short".`,
      );
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

function loadOrExplain(path: string): Blueprint {
  const loaded = loadBlueprint(path);
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.blueprint || errors.length > 0) {
    for (const d of errors)
      process.stderr.write(
        `${d.file ?? loaded.file}${d.line ? `:${d.line}:${d.column ?? 1}` : ''}: error ${d.message} [${d.code}]\n`,
      );
    process.exitCode = 2;
    throw new LevError(
      'blueprint-invalid',
      `${path} is not a valid blueprint; run \`lev validate ${path}\` for every finding.`,
    );
  }
  return loaded.blueprint;
}

function isLocal(address: string): boolean {
  return /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(address);
}

/** Starts the embedded dev server when nothing answers at a local address. */
async function ensureServer(address: string, say: (line: string) => void): Promise<DevServer | undefined> {
  if (await temporalAnswers(address)) return undefined;
  if (!isLocal(address))
    throw new LevError(
      'server-unreachable',
      `No Temporal server answers at ${address}; start one, or pass --address for one that runs.`,
    );
  const port = Number(address.split(':').at(-1));
  const cli = await findTemporalCli({ log: say });
  const server = await startDevServer({
    cli,
    dbFile: join(dataDir(), 'temporal.sqlite'),
    port,
    uiPort: port + 1000,
    logFile: join(dataDir(), 'temporal.log'),
  });
  say(
    `started the Temporal dev server at ${server.address}; Web UI ${server.uiUrl} (it stops with this run; \`lev server\` keeps it up)`,
  );
  return server;
}

function printTurn(p: Progress): void {
  process.stdout.write(
    `\n[${p.stage}] turn ${p.visitTurns} (run inference ${p.inferences}) — window ${p.window.used}/${p.window.max} tokens\n${formatBars(p.regions)}\n`,
  );
}

function printWorkers(w: NonNullable<Progress['workers']>, p: Progress): void {
  process.stdout.write(
    `[${p.stage}] workers: ${w.running} running, ${w.queued} queued, ${w.done} done, ${w.failed} failed\n`,
  );
}

function printResult(r: RunResult): void {
  process.stdout.write(
    `\n${r.status === 'completed' ? 'Run completed' : r.status === 'cancelled' ? 'Run cancelled' : `Run failed: ${r.error ?? 'unknown error'}`} after stages ${r.stages.join(' → ') || '(none)'}\n`,
  );
  if (r.gatesForced.length > 0)
    process.stdout.write(
      `Gates forced: ${r.gatesForced.map((g) => `${g.stage}→${g.target ?? 'end'} (${g.check})`).join(', ')}\n`,
    );
  if (r.output) process.stdout.write(`\nOutput${r.outputFormat ? ` (${r.outputFormat})` : ''}:\n${r.output}\n`);
  process.stdout.write(`\nRun id: ${r.runId}\n`);
}

/** Resolves with the first SIGINT or SIGTERM, so the command stops its worker and server instead of polling on. */
function interruption(): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (sig: NodeJS.Signals) => void = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = resolve;
  });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

export async function runAgentCommand(path: string, flags: RunFlags): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  let bp = loadOrExplain(path);
  if (flags.model) bp = withModel(bp, flags.model);
  bp = withLaunchOutput(bp, {
    ...(flags.outputFormat ? { format: flags.outputFormat } : {}),
    ...(flags.outputInstructions ? { instructions: flags.outputInstructions } : {}),
  });
  const workdir = resolve(flags.workdir);
  checkWorkdir(workdir);
  checkSandbox(bp, process.env, say, !flags.seedCommands);
  const caller = callerValues(flags.input);
  const toolTaskQueue = flags.toolQueue ?? toolQueueName(workdir);
  const input = {
    blueprint: bp,
    ...(flags.task !== undefined ? { task: flags.task } : {}),
    caller,
    workdir,
    options: {
      ...DEFAULT_RUN_OPTIONS,
      noSeedCommands: !flags.seedCommands,
      unattended: flags.attended !== true,
      toolTaskQueue,
    },
  };
  // With a remote tool worker the workdir is on its machine, so its seeds are checked there.
  if (!flags.toolQueue)
    preflight(
      bp,
      {
        caller,
        workdir,
        noSeedCommands: !flags.seedCommands,
        ...(flags.task !== undefined ? { task: flags.task } : {}),
      },
      process.env,
    );

  // A frontend behind TLS is never the embedded dev server, and the plain probe cannot reach it.
  const server = temporalTls() ? undefined : await ensureServer(flags.address, say);
  const connection = await Connection.connect({ address: flags.address, ...tlsOption() });
  // The run's own report says what failed; the SDK's warnings would repeat it with stack traces.
  installRuntime('ERROR');
  say('starting an in-process worker (bundling workflow code) ...');
  const { worker, connection: workerConnection } = await createWorker({
    address: flags.address,
    taskQueue: flags.taskQueue,
  });
  // Tool calls and seeds go to a worker that sees the workdir: this process, unless --tool-queue names another.
  const tools = flags.toolQueue ? undefined : await createToolWorker({ address: flags.address, workdir });
  const running = Promise.all([worker.run(), tools?.worker.run()]);
  const interrupt = interruption();
  let interrupted: number | undefined;
  try {
    const client = new Client({ connection });
    const handle = await startRun(client, input, {
      taskQueue: flags.taskQueue,
      ...(flags.id ? { workflowId: flags.id } : {}),
    });
    if (!flags.json) say(`run ${handle.workflowId} started on ${flags.address}`);
    // Only a person at a terminal can answer here; elsewhere the answer comes through `lev` or the Web UI.
    const reply =
      process.stdin.isTTY && !flags.json ? terminalAnswers(client, handle.workflowId) : commandHint(handle.workflowId);
    const following = followRun(client, handle, flags.json ? () => {} : printTurn, {
      toolTaskQueue,
      onWaiting: reply,
      ...(flags.json ? {} : { onWorkers: printWorkers }),
      onWait: (w) =>
        say(
          w
            ? `waiting for the tool worker on task queue ${w.taskQueue} (${w.activity} not started for ${Math.round((Date.now() - w.sinceMs) / 1000)} s); start \`lev worker --tools --workdir ${workdir}${flags.toolQueue ? ` --task-queue ${flags.toolQueue}` : ''}\` where the workdir is`
            : 'the tool worker is back; the run goes on',
        ),
    });
    const result = await Promise.race([following, interrupt.signal]);
    if (typeof result === 'string') {
      say(
        `stopping on ${result}: the worker hands its calls in flight back to the server; run ${handle.workflowId} stays there and goes on when a worker polls task queue "${flags.taskQueue}" again.`,
      );
      interrupted = 128 + (result === 'SIGINT' ? 2 : 15);
      return;
    }
    if (flags.json) {
      const { runId, status, regions, gatesForced, usage } = result;
      const output = { format: result.outputFormat ?? 'text', text: result.output };
      process.stdout.write(
        `${JSON.stringify({ runId, status, output, regions: regions.map(({ name, kind, tokens, budget }) => ({ name, kind, tokens, budget })), gatesForced, usage, ...(result.error ? { error: result.error } : {}) })}\n`,
      );
    } else printResult(result);
    if (result.status !== 'completed') process.exitCode = 1;
  } finally {
    interrupt.dispose();
    // The SDK's own signal handler may have begun the shutdown already; shutting one down twice throws.
    for (const w of [worker, tools?.worker]) if (w?.getState() === 'RUNNING') w.shutdown();
    await running.catch(() => {});
    await workerConnection.close();
    await tools?.connection.close();
    await server?.stop();
    // The client still long-polls for the result, which closing its connection would turn into an
    // uncaught error; the process ends here instead.
    if (interrupted !== undefined) process.exit(interrupted);
    await connection.close();
  }
}

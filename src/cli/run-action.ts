/**
 * What `lev run` does: starts the embedded Temporal dev server when none
 * answers locally, runs a worker in this process, starts the run and prints
 * every turn with one bar per region (`follow-terminal.ts`, which also
 * handles Ctrl-C). Loaded only when `lev run` runs, since the Temporal
 * worker takes seconds to import.
 */
import { Client, Connection } from '@temporalio/client';
import { codecOption } from '../codec/payload-codec.js';
import { providerWaitText } from '../runtime/details.js';
import { toolWorkerCommand } from '../runtime/tool-queue.js';
import { flushTracing, startTracing, tracingClientInterceptors } from '../telemetry/tracing.js';
import { connectOptions, serverChoice, serverSettings } from '../worker/connection.js';
import { bundleFromEnv, createWorker, installRuntime } from '../worker/create-worker.js';
import { versionPolled, workerDeployment } from '../worker/deployment.js';
import { startRun } from '../worker/run-client.js';
import { createToolWorker } from '../worker/tool-worker.js';
import { callerValues } from './caller-values.js';
import { startDetached } from './detach-action.js';
import {
  followInTerminal,
  type Hosted,
  printTurn,
  printWorkers,
  reportEnd,
  stopHosted,
  textPrinter,
} from './follow-terminal.js';
import { parseOutputSchema, valueOrFile } from './launch-flags.js';
import { launchInput } from './launch-input.js';
import { metricsAddress } from './options.js';
import { commandHint, terminalAnswers } from './reply-prompt.js';
import { ensureServer } from './server-access.js';

export interface RunFlags {
  task?: string;
  input: string[];
  model?: string;
  address: string;
  namespace: string;
  profile?: string;
  taskQueue: string;
  /** `HOST:PORT` for Prometheus metrics (docs/reference/operating.md#metrics). */
  metrics?: string;
  workdir: string;
  json?: boolean;
  seedCommands: boolean;
  id?: string;
  /** What people call the run (docs/reference/cli.md#run-titles). */
  title?: string;
  /** A tool queue served elsewhere (`lev worker --tools`); none means one in this process for the workdir. */
  toolQueue?: string;
  outputFormat?: string;
  outputInstructions?: string;
  /** `--output-schema <JSON|@FILE>`. */
  outputSchema?: string;
  /** `--allow TOOL` (repeatable): that tool's `ask` becomes `allow`. */
  allow?: string[];
  /** `--yolo`: unattended, and every `ask` becomes `allow`; a `deny` stays. */
  yolo?: boolean;
  /** A person attends the run (docs/reference/operators.md#attended-runs). */
  attended?: boolean;
  /** Start the run and return with its id; the cluster's workers serve it (docs/reference/cluster-runs.md#detached-runs). */
  detach?: boolean;
}

export async function runAgentCommand(path: string, flags: RunFlags): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const input = await launchInput(
    path,
    {
      ...(flags.task !== undefined ? { task: valueOrFile(flags.task, '--task') } : {}),
      caller: callerValues(flags.input),
      ...(flags.model ? { model: flags.model } : {}),
      workdir: flags.workdir,
      seedCommands: flags.seedCommands,
      ...(flags.toolQueue ? { toolQueue: flags.toolQueue } : {}),
      ...(flags.outputFormat ? { outputFormat: flags.outputFormat } : {}),
      ...(flags.outputInstructions ? { outputInstructions: flags.outputInstructions } : {}),
      ...(flags.outputSchema !== undefined ? { outputSchema: parseOutputSchema(flags.outputSchema) } : {}),
      allow: flags.allow ?? [],
      ...(flags.yolo ? { yolo: true } : {}),
      ...(flags.attended ? { attended: true } : {}),
      ...(flags.title !== undefined ? { title: flags.title } : {}),
    },
    { say },
  );
  const { workdir } = input;
  const toolTaskQueue = input.options.toolTaskQueue ?? '';

  if (flags.detach) {
    await startDetached(input, flags);
    return;
  }

  const hosted: Hosted = { workers: [] };
  const choice = serverChoice(flags);
  const server = serverSettings(choice);
  hosted.server = await ensureServer(server, say);
  const connection = await Connection.connect(connectOptions(server));
  // The run's own report says what failed; the SDK's warnings would repeat it with stack traces.
  // Ctrl-C is this command's to handle: the first detaches, so the workers must not stop on it.
  const metrics = metricsAddress(flags.metrics);
  installRuntime('ERROR', { ownSignals: true, ...(metrics ? { metrics } : {}) });
  startTracing();
  say('starting an in-process worker (bundling workflow code) ...');
  const main = await createWorker({ ...choice, taskQueue: flags.taskQueue, ...bundleFromEnv() });
  hosted.workers.push({ ...main, running: main.worker.run() });
  // Tool calls and seeds go to a worker that sees the workdir: this process, unless --tool-queue names another.
  if (!flags.toolQueue) {
    const tools = await createToolWorker({ ...choice, workdir });
    hosted.workers.push({ ...tools, running: tools.worker.run() });
  }
  let exitCode: number | undefined;
  try {
    const client = new Client({
      connection,
      namespace: server.namespace,
      interceptors: tracingClientInterceptors(),
      ...codecOption(),
    });
    // With a deployment set, the in-process workers serve one version of it, current or not; the run stays there.
    const version = workerDeployment();
    if (version) await versionPolled(client, version, flags.taskQueue);
    const handle = await startRun(client, input, {
      taskQueue: flags.taskQueue,
      ...(flags.id ? { workflowId: flags.id } : {}),
      ...(version ? { pinnedTo: version } : {}),
    });
    if (!flags.json) say(`run ${handle.workflowId} started on ${flags.address}`);
    // Only a person at a terminal can answer here; elsewhere the answer comes through `lev` or the Web UI.
    const reply =
      process.stdin.isTTY && !flags.json
        ? terminalAnswers(client, handle.workflowId)
        : commandHint(handle.workflowId, flags.address);
    const end = await followInTerminal(client, handle, {
      onTurn: flags.json ? () => {} : printTurn,
      ...(flags.json ? {} : { onText: textPrinter() }),
      say,
      onWaiting: reply,
      follow: {
        toolTaskQueue,
        ...(flags.json ? {} : { onWorkers: printWorkers }),
        onProvider: (w) =>
          say(
            w ? `waiting for ${providerWaitText(w).replace(/`/g, '')}` : 'the provider answers again; the run goes on',
          ),
        onWait: (w) =>
          say(
            w
              ? `waiting for the tool worker on task queue ${w.taskQueue} (${w.activity} not started for ${Math.round((Date.now() - w.sinceMs) / 1000)} s); start \`${toolWorkerCommand(workdir, w.taskQueue)}\` where the workdir is`
              : 'the tool worker is back; the run goes on',
          ),
      },
    });
    exitCode = await reportEnd(end, {
      runId: handle.workflowId,
      address: flags.address,
      hosted,
      json: flags.json,
      say,
    });
  } finally {
    await stopHosted(hosted);
    await flushTracing();
    // The client still long-polls for the result, which closing its connection would turn into an
    // uncaught error; the process ends here instead.
    if (exitCode !== undefined) process.exit(exitCode);
    await connection.close();
  }
}

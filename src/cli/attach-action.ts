/**
 * What `lev attach` does: follows a run with the bars of `lev run`. A run
 * orphaned by a crash or a detach resumes here: when no server answers at
 * a local address it starts the embedded one on the same database, and
 * when no worker answers the run's `progress` query it runs a worker (and
 * the tool worker of the run's workdir) in this process.
 */
import { existsSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { codecOption } from '../codec/payload-codec.js';
import { servesHere } from '../runtime/node/tool-queue-name.js';
import { toolWorkerCommand } from '../runtime/tool-queue.js';
import { connectOptions, serverChoice, serverSettings } from '../worker/connection.js';
import { bundleFromEnv, createWorker, installRuntime } from '../worker/create-worker.js';
import { runProgress } from '../worker/operators.js';
import { runOutcome, type ToolWait } from '../worker/run-client.js';
import { describeRun, startedInput } from '../worker/runs.js';
import { createToolWorker } from '../worker/tool-worker.js';
import {
  followInTerminal,
  type Hosted,
  printTurn,
  printWorkers,
  reportEnd,
  stopHosted,
  textPrinter,
} from './follow-terminal.js';
import { commandHint, terminalAnswers } from './reply-prompt.js';
import { ensureServer } from './server-access.js';

/** The options of `lev attach` (declared in `commands/attach.ts`). */
export interface AttachFlags {
  address: string;
  namespace: string;
  profile?: string;
  json?: boolean;
}

/** How long a worker has to answer before this command serves the run itself. */
const WORKER_PROBE_MS = 3000;

export async function attachToRun(runId: string, flags: AttachFlags): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const hosted: Hosted = { workers: [] };
  const choice = serverChoice(flags);
  const server = serverSettings(choice);
  hosted.server = await ensureServer(server, say);
  const connection = await Connection.connect(connectOptions(server));
  const client = new Client({ connection, namespace: server.namespace, ...codecOption() });
  let exitCode: number | undefined;
  try {
    const info = await describeRun(client, runId, flags.address);
    const handle = client.workflow.getHandle(runId);
    if (info.status.name !== 'RUNNING') {
      if (!flags.json) say(`run ${runId} has already ended (${info.status.name.toLowerCase()})`);
      const end = { kind: 'finished', result: await runOutcome(handle) } as const;
      await reportEnd(end, { runId, address: flags.address, hosted, json: flags.json, say });
      return;
    }
    const input = await startedInput(client, runId);
    // The run's tool queue is served here when it is the workdir's own (its identity's, or this host's
    // for a run of an earlier version) and the workdir is here; a queue a person named is served elsewhere.
    const toolQueue = input.options.toolTaskQueue;
    const ownTools = toolQueue !== undefined && existsSync(input.workdir) && servesHere(input.workdir, toolQueue);
    installRuntime('ERROR', { ownSignals: true });
    const serveTools = async () => {
      say(`starting a tool worker for ${input.workdir} (task queue ${toolQueue}) in this process`);
      const tools = await createToolWorker({
        ...choice,
        workdir: input.workdir,
        ...(toolQueue ? { taskQueue: toolQueue } : {}),
      });
      hosted.workers.push({ ...tools, running: tools.worker.run() });
    };
    const answered = !hosted.server && (await runProgress(client, handle, WORKER_PROBE_MS)) !== undefined;
    if (answered) say(`following run ${runId}; a worker on task queue "${info.taskQueue}" serves it`);
    else {
      say(`no worker serves run ${runId}; starting one on task queue "${info.taskQueue}" in this process ...`);
      const main = await createWorker({
        ...choice,
        taskQueue: info.taskQueue,
        ...bundleFromEnv(),
      });
      hosted.workers.push({ ...main, running: main.worker.run() });
      if (ownTools) await serveTools();
    }
    let toolsServed = !answered && ownTools;
    const onWait = (w: ToolWait | undefined) => {
      if (!w) return say('the tool worker is back; the run goes on');
      // The shared worker answers, but the workdir's tool worker is gone with the process that ran it.
      if (ownTools && !toolsServed) {
        toolsServed = true;
        void serveTools();
        return;
      }
      say(
        `waiting for the tool worker on task queue ${w.taskQueue} (${w.activity} not started for ${Math.round((Date.now() - w.sinceMs) / 1000)} s); start \`${toolWorkerCommand(input.workdir, w.taskQueue)}\` where the workdir is`,
      );
    };
    const reply =
      process.stdin.isTTY && !flags.json ? terminalAnswers(client, runId) : commandHint(runId, flags.address);
    const end = await followInTerminal(client, handle, {
      onTurn: flags.json ? () => {} : printTurn,
      ...(flags.json ? {} : { onText: textPrinter() }),
      say,
      onWaiting: reply,
      follow: {
        ...(toolQueue ? { toolTaskQueue: toolQueue, onWait } : {}),
        ...(flags.json ? {} : { onWorkers: printWorkers }),
      },
    });
    exitCode = await reportEnd(end, { runId: runId, address: flags.address, hosted, json: flags.json, say });
  } finally {
    await stopHosted(hosted);
    // As in `lev run`: the result long-poll would outlive a closed connection.
    if (exitCode !== undefined) process.exit(exitCode);
    await connection.close();
  }
}

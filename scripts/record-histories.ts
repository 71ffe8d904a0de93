/**
 * Records the histories that `test/integration/cross-version-replay.test.ts`
 * replays against every later version of the workflow code: the demo agent,
 * the gates-seeds scenario, the reviewer's fan-out and an attended run that
 * people steer through the run's updates, each run once on a throwaway dev
 * server with the offline scripted model. Writes `test/histories/<label>/<scenario>/*.history.gz`
 * (gzipped binary protobuf) and refuses to overwrite a label that exists: recorded
 * histories are kept as they are, new ones are added under a new label.
 *
 *   node --import tsx scripts/record-histories.ts <label>
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { loadBlueprint } from '../src/blueprint/load.js';
import { startDevServer } from '../src/devserver/dev-server.js';
import { freePort } from '../src/devserver/net.js';
import { findTemporalCli } from '../src/devserver/temporal-cli.js';
import type { PendingAsk } from '../src/runtime/index.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { bundleWorkflows, createWorker } from '../src/worker/create-worker.js';
import { runProgress, sendUpdate } from '../src/worker/operators.js';
import { followRun, startRun } from '../src/worker/run-client.js';

const ROOT = resolve(import.meta.dirname, '..');

interface Scenario {
  name: string;
  blueprint: string;
  workspace: string;
  task: string;
  /** Started with `--attended`: its `ask` calls wait for a person. */
  attended?: boolean;
  /** What people do while it runs, through the run's updates. */
  steer?: (client: Client, handle: WorkflowHandle) => Promise<void>;
}

/** The run's first open question once one of `kind` is asked. */
async function question(client: Client, handle: WorkflowHandle, kind: PendingAsk['kind']): Promise<PendingAsk> {
  for (;;) {
    const ask = (await runProgress(client, handle))?.asks.find((a) => a.kind === kind);
    if (ask) return ask;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The operators scenario: approve the first write, deny the second, answer the question, message and pause during the slow turn. */
async function steerOperators(client: Client, handle: WorkflowHandle): Promise<void> {
  const run = handle.workflowId;
  await sendUpdate(client, run, 'approve', { call: (await question(client, handle, 'approval')).call });
  await sendUpdate(client, run, 'deny', {
    call: (await question(client, handle, 'approval')).call,
    note: 'keep b.txt as it is',
  });
  await sendUpdate(client, run, 'answer', { call: (await question(client, handle, 'answer')).call, text: 'release' });
  // The fourth turn answers after 1.5 s: the message and the pause land while it runs.
  await sendUpdate(client, run, 'message', 'Say which branch you used.');
  await sendUpdate(client, run, 'pause');
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await sendUpdate(client, run, 'resume');
}

const SCENARIOS: Scenario[] = [
  {
    name: 'demo',
    blueprint: 'blueprints/demo',
    workspace: 'blueprints/demo/workspace',
    task: "Find the root cause of last night's billing outage in logs/ and write a short incident report.",
  },
  {
    name: 'gates-seeds',
    blueprint: 'test/histories/scenarios/gates-seeds',
    workspace: 'test/histories/scenarios/gates-seeds/workspace',
    task: 'Read both notes and summarise the status.',
  },
  {
    name: 'reviewer',
    blueprint: 'blueprints/reviewer',
    workspace: 'blueprints/reviewer/workspace',
    task: 'Review the change in src/ and report every problem by file.',
  },
  {
    name: 'operators',
    blueprint: 'test/histories/scenarios/operators',
    workspace: 'test/histories/scenarios/operators/workspace',
    task: 'Write a.txt and b.txt, then ask which branch to use.',
    attended: true,
    steer: steerOperators,
  },
];

async function main(): Promise<void> {
  const label = process.argv[2];
  if (!label || !/^[\w.-]+$/.test(label)) throw new Error('usage: record-histories.ts <label>, e.g. v0.1.0');
  const out = join(ROOT, 'test/histories', label);
  if (existsSync(out)) throw new Error(`${out} exists; recorded histories are never rewritten, pick a new label`);

  const tmp = mkdtempSync(join(tmpdir(), 'lev-record-'));
  const cli = await findTemporalCli({ install: true, log: (line) => process.stderr.write(`${line}\n`) });
  const server = await startDevServer({
    cli,
    dbFile: join(tmp, 'temporal.sqlite'),
    port: await freePort(),
    uiPort: await freePort(),
    headless: true,
  });
  const taskQueue = `record-${label}`;
  const { worker, connection: workerConnection } = await createWorker({
    address: server.address,
    taskQueue,
    bundle: await bundleWorkflows(),
    runtime: { blobDir: join(tmp, 'blobs'), env: process.env },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  try {
    for (const scenario of SCENARIOS) {
      const loaded = loadBlueprint(join(ROOT, scenario.blueprint));
      if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
      // Tools may write into the workdir: run on a copy so the repository stays as it is.
      const workdir = join(tmp, `work-${scenario.name}`);
      cpSync(join(ROOT, scenario.workspace), workdir, { recursive: true });
      const options = { ...DEFAULT_RUN_OPTIONS, ...(scenario.attended ? { unattended: false } : {}) };
      const handle = await startRun(
        client,
        { blueprint: loaded.blueprint, task: scenario.task, caller: {}, workdir, options },
        { taskQueue, workflowId: `${scenario.name}-${label}` },
      );
      const [result] = await Promise.all([followRun(client, handle, () => {}), scenario.steer?.(client, handle)]);
      if (result.status !== 'completed') throw new Error(`${scenario.name} ended ${result.status}: ${result.error}`);
      const dir = join(out, scenario.name);
      mkdirSync(dir, { recursive: true });
      for await (const wf of client.workflow.list({
        query: `WorkflowId = '${handle.workflowId}' OR WorkflowId STARTS_WITH '${handle.workflowId}.' OR WorkflowId STARTS_WITH '${handle.workflowId}/'`,
      })) {
        const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
        // A sub-agent's id holds `/`, so the file name carries the id percent-encoded.
        writeFileSync(
          join(dir, `${encodeURIComponent(wf.workflowId)}--${wf.runId}.history.gz`),
          gzipSync(proto.temporal.api.history.v1.History.encode(history).finish(), { level: 9 }),
        );
      }
      process.stderr.write(`recorded ${scenario.name}: stages ${result.stages.join(' → ')}\n`);
    }
  } finally {
    worker.shutdown();
    await running;
    await workerConnection.close();
    await connection.close();
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

/**
 * Records the histories that `test/histories.test.ts` replays against every
 * later version of the workflow code: the demo agent and the gates-seeds
 * scenario, each run once on a throwaway dev server with the offline
 * scripted model. Writes `test/histories/<label>/<scenario>/*.history.gz`
 * (gzipped binary protobuf) and refuses to overwrite a label that exists: recorded
 * histories are kept as they are, new ones are added under a new label.
 *
 *   node --import tsx scripts/record-histories.ts <label>
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { loadBlueprint } from '../src/blueprint/load.js';
import { startDevServer } from '../src/devserver/dev-server.js';
import { freePort } from '../src/devserver/net.js';
import { findTemporalCli } from '../src/devserver/temporal-cli.js';
import { DEFAULT_RUN_OPTIONS } from '../src/runtime/types.js';
import { followRun, startRun } from '../src/worker/client.js';
import { bundleWorkflows, createWorker } from '../src/worker/worker.js';

const ROOT = resolve(import.meta.dirname, '..');

interface Scenario {
  name: string;
  blueprint: string;
  workspace: string;
  task: string;
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
      const handle = await startRun(
        client,
        { blueprint: loaded.blueprint, task: scenario.task, caller: {}, workdir, options: DEFAULT_RUN_OPTIONS },
        { taskQueue, workflowId: `${scenario.name}-${label}` },
      );
      const result = await followRun(client, handle, () => {});
      if (result.status !== 'completed') throw new Error(`${scenario.name} ended ${result.status}: ${result.error}`);
      const dir = join(out, scenario.name);
      mkdirSync(dir, { recursive: true });
      for await (const wf of client.workflow.list({
        query: `WorkflowId = '${handle.workflowId}' OR WorkflowId STARTS_WITH '${handle.workflowId}.'`,
      })) {
        const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
        writeFileSync(
          join(dir, `${wf.workflowId}--${wf.runId}.history.gz`),
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

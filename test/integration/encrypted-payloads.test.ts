/**
 * An encrypted deployment (docs/reference/operating.md#encrypted-payloads):
 * a worker and a client with `LEVIATH_CODEC_KEY_FILE` run a scripted agent
 * on their own dev server. The raw history, the memo and the summary hold
 * no word of the task or the answer, nor do the blob files; the run's
 * result reads back through the codec; `temporal workflow show` and the Web
 * UI (in Chromium) show ciphertext without `lev codec-server` and the text
 * with it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningCodecServer, startCodecServer } from '../../src/codec/decode-server.js';
import { configuredKeyring } from '../../src/codec/keys.js';
import { AesGcmPayloadCodec, codecOption } from '../../src/codec/payload-codec.js';
import { type DevServer, startDevServer } from '../../src/devserver/dev-server.js';
import { freePort } from '../../src/devserver/net.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { runOutcome, startRun } from '../../src/worker/run-client.js';
import { launchChromium, SCREENSHOTS } from './browser.js';
import { tempDir, writeBlueprint } from './run-helpers.js';

const run = promisify(execFile);
const TASK = 'Find why invoice INV-58213 was charged twice.';
const ANSWER = 'Invoice INV-58213 was retried by the payment webhook.';

describe('an encrypted deployment', () => {
  let server: DevServer;
  let connection: Connection;
  let client: Client;
  let codec: RunningCodecServer;
  let browser: BrowserContext;
  let stopWorker: () => Promise<void>;
  let blobDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    browser = await launchChromium();
    const keyFile = join(tempDir('codec-keys'), 'keys');
    writeFileSync(keyFile, `k1 ${randomBytes(32).toString('base64')}\n`);
    env = { ...process.env, LEVIATH_CODEC_KEY_FILE: keyFile };
    const [port, uiPort] = [await freePort(), await freePort()];
    server = await startDevServer({ cli: inject('temporalCli'), dbFile: '', port, uiPort });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection, ...codecOption(env) });
    blobDir = tempDir('codec-blobs');
    const { worker, connection: workerConnection } = await createWorker({
      address: server.address,
      taskQueue: 'sealed',
      bundle: { codePath: inject('workflowBundlePath') },
      runtime: { blobDir, env },
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
      await workerConnection.close();
    };
    codec = await startCodecServer({
      codec: new AesGcmPayloadCodec(configuredKeyring(env)!),
      host: '127.0.0.1',
      port: 0,
      allowOrigins: [new URL(server.uiUrl).origin],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await codec?.close();
    await stopWorker?.();
    await connection?.close();
    await server?.stop();
  });

  it('keeps the task and the answer out of the history and the blob store, and shows them to the codec holder', async () => {
    const blueprint = writeBlueprint(
      `
[agent]
name = "sealed"
model = "scripted:script.toml"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
conversation = { kind = "sliding_window", max_tokens = 4000 }
[stages.work]
`,
      { 'script.toml': `[[turns]]\ntext = "${ANSWER}"\n` },
    );
    const handle = await startRun(
      client,
      { blueprint, task: TASK, caller: {}, workdir: tempDir('codec-work'), options: DEFAULT_RUN_OPTIONS },
      { taskQueue: 'sealed' },
    );
    const result = await runOutcome(handle);
    expect(result.status).toBe('completed');
    expect(result.output).toContain('INV-58213');
    // The codec client reads the memo back in the clear.
    expect((await handle.describe()).memo?.task).toBe(TASK);

    // Everything Temporal stores about the run, as any client without the key sees it.
    const plain = new Client({ connection });
    const start = await plain.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId: handle.workflowId },
      maximumPageSize: 1,
    });
    const input = start.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const sealedInput = Buffer.from(input?.data ?? []).toString('base64');
    const { executions } = await plain.workflowService.listWorkflowExecutions({ namespace: 'default' });
    const ids = (executions ?? []).map((e) => e.execution?.workflowId ?? '');
    // The run and its stage's workflow, whose memo and summary are the listing's too.
    expect(ids).toContain(handle.workflowId);
    expect(ids.length).toBeGreaterThan(1);
    expect(JSON.stringify(executions)).not.toContain('INV-58213');
    for (const id of ids) {
      const history = await plain.workflowService.getWorkflowExecutionHistory({
        namespace: 'default',
        execution: { workflowId: id },
      });
      const described = await plain.workflowService.describeWorkflowExecution({
        namespace: 'default',
        execution: { workflowId: id },
      });
      const raw = Buffer.concat([
        Buffer.from(JSON.stringify(history.history)),
        Buffer.from(JSON.stringify(described)),
      ]).toString('latin1');
      expect(raw).not.toContain('INV-58213');
      expect(raw).toContain('encryption-key-id');
    }
    const blobFiles = readdirSync(blobDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(blobFiles.length).toBeGreaterThan(0);
    for (const f of blobFiles)
      expect(readFileSync(join(f.parentPath, f.name)).toString('latin1')).not.toContain('INV-58213');

    // The temporal CLI: ciphertext, then the text through the codec server.
    const show = (extra: string[]) =>
      run(inject('temporalCli'), [
        'workflow',
        'show',
        '--workflow-id',
        handle.workflowId,
        '--address',
        server.address,
        '--detailed',
        ...extra,
      ]).then((r) => r.stdout);
    expect(await show([])).not.toContain('INV-58213');
    expect(await show(['--codec-endpoint', codec.url])).toContain('INV-58213');

    // The Web UI: ciphertext in a fresh browser, the text once its codec endpoint is the codec server.
    const page = await browser.newPage();
    const url = `${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}`;
    await page.goto(url);
    const text = () =>
      page
        .locator('body')
        .textContent()
        .then((t) => t ?? '');
    // The run's input as the UI shows it without the codec: the sealed bytes, in base64.
    await expect.poll(text, { timeout: 30_000 }).toContain(sealedInput.slice(0, 40));
    expect(await text()).not.toContain('INV-58213');
    await page.screenshot({ path: join(SCREENSHOTS, 'codec-without.png'), fullPage: true });
    // What the UI's codec server settings store in the browser (its "Codec Server" dialog).
    await page.evaluate(
      `localStorage.setItem('endpoint', ${JSON.stringify(JSON.stringify(codec.url))});` +
        `localStorage.setItem('overrideRemoteCodecConfiguration', 'true');`,
    );
    await page.goto(url);
    await expect.poll(text, { timeout: 30_000 }).toContain('INV-58213');
    await page.screenshot({ path: join(SCREENSHOTS, 'codec-with.png'), fullPage: true });
  });
});

/**
 * The Temporal Web UI of the project's dev server, in a real Chromium
 * (Debian's, driven by playwright-core): a scripted agent's run shows its
 * summary, and its current details show the region table and the cost line
 * (docs/reference/operators.md#current-details); a `message` update sent
 * through the UI's "Send an Update" form reaches the agent's next
 * inference. Screenshots go to `.leviath/screenshots/`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DevServer, startDevServer } from '../../src/devserver/dev-server.js';
import { freePort } from '../../src/devserver/net.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { runProgress } from '../../src/worker/operators.js';
import { startRun } from '../../src/worker/run-client.js';
import { chromiumBinary, launchChromium, SCREENSHOTS } from './browser.js';
import { until } from './lev-process.js';
import { saveHistories, tempDir, writeBlueprint } from './run-helpers.js';

const MESSAGE = 'Look at the billing logs first.';

/** An interactive agent: it notes something, asks, and waits for the person's reply, twice. */
const SCRIPT = `
[[turns]]
stage = "triage"
text = "Noting what I know."
[[turns.tool_calls]]
name = "context_append"
arguments = { region = "notes", content = "the outage began at 02:10" }

[[turns]]
stage = "triage"
text = "Where should I look first?"

[[turns]]
stage = "triage"
text = "Reading the billing logs, as you asked."
`;

function blueprint() {
  return writeBlueprint(
    `
[agent]
name = "watched"
model = "scripted:script.toml"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
notes        = { kind = "temporary", max_tokens = 800 }
conversation = { kind = "sliding_window", max_tokens = 4000 }
[stages.triage]
mode = "interactive"
available_tools = ["context_append"]
`,
    { 'script.toml': SCRIPT },
  );
}

/** Every `infer` call a workflow scheduled, with its input as JSON text. */
async function inferInputs(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'infer')
    .map((a) => JSON.stringify(defaultPayloadConverter.fromPayload(a!.input!.payloads![0]!)));
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true });
}

describe('the Temporal Web UI', () => {
  let server: DevServer;
  let connection: Connection;
  let client: Client;
  let browser: BrowserContext;
  let stopWorker: () => Promise<void>;

  beforeAll(async () => {
    // Launching first: a missing Chromium fails the test here, with how to install it.
    browser = await launchChromium();
    const [port, uiPort] = [await freePort(), await freePort()];
    server = await startDevServer({
      cli: inject('temporalCli'),
      dbFile: join(mkdtempSync(join(tmpdir(), 'leviath-webui-')), 'temporal.sqlite'),
      port,
      uiPort,
    });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
    const { worker, connection: workerConnection } = await createWorker({
      address: server.address,
      taskQueue: 'web-ui',
      bundle: { codePath: inject('workflowBundlePath') },
      runtime: { blobDir: tempDir('webui-blobs'), env: process.env },
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
      await workerConnection.close();
    };
  });
  afterAll(async () => {
    await browser?.close();
    await stopWorker?.();
    await connection?.close();
    await server?.stop();
  });

  /** A run of the interactive agent, once it waits for the person's reply after its second turn. */
  async function waitingRun(): Promise<{ handle: WorkflowHandle; progress: () => ReturnType<typeof runProgress> }> {
    const handle = await startRun(
      client,
      {
        blueprint: blueprint(),
        task: 'Find why billing failed last night.',
        caller: {},
        workdir: tempDir('webui-work'),
        options: DEFAULT_RUN_OPTIONS,
      },
      { taskQueue: 'web-ui' },
    );
    // The run's counters with its live visit's merged in; none until its first workflow task.
    const progress = () => runProgress(client, handle);
    await until(async () => (await progress())?.waiting === 'message', 60_000, 'the agent to wait for a reply');
    return { handle, progress };
  }

  /** Ends a run that waits for a reply, and keeps its histories for the replay test. */
  async function finish(handle: WorkflowHandle): Promise<void> {
    await handle.executeUpdate('message', { args: ['/done'] });
    await handle.result();
    await saveHistories(client, handle.workflowId);
  }

  it('shows the current details of the run and its live visit, with the region table and the cost line', async () => {
    const { handle } = await waitingRun();
    const page = await browser.newPage();
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}`);
    await page.getByText('User Metadata', { exact: true }).click();
    // The UI renders each Markdown field in its own frame.
    const summary = page.frameLocator('main iframe').first().locator('body');
    const details = page.frameLocator('#user-metadata-current-details').locator('body');
    await expect.poll(() => details.textContent(), { timeout: 30_000 }).toContain('Estimated cost');
    expect(await summary.textContent()).toContain('watched: Find why billing failed last night.');
    const text = (await details.textContent()) ?? '';
    expect(text).toContain(`Live stage: triage in workflow ${handle.workflowId}.1.triage`);
    expect(text).toContain(`Waiting for a reply: lev msg ${handle.workflowId}`);
    // The run's own page counts the live visit's turns and usage, as of its last report.
    expect(text).toContain(`Run ${handle.workflowId} · waiting · 2 inferences`);
    expect(text).toMatch(/Usage \(the run, as of the live visit.s last report\): 2 model calls/);
    expect(text).toContain('Estimated cost: unknown (no prices for scripted:script.toml in the model table)');
    const table = details.locator('table').first();
    expect((await table.locator('th').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      'Region',
      'Kind',
      'Tokens / budget',
      'Fill',
      'Entries',
    ]);
    const rows = await Promise.all(
      (await table.locator('tbody tr').all()).map(async (row) =>
        (await row.locator('td').allTextContents()).map((cell) => cell.trim()),
      ),
    );
    expect(rows.map((cells) => cells[0]).slice(0, 3)).toEqual(['task', 'notes', 'conversation']);
    // A region's kind, its tokens of its budget, a 20-character bar and its entries.
    expect(rows[0]).toEqual([
      'task',
      'pinned',
      expect.stringMatching(/^\d+ \/ 500$/),
      expect.stringMatching(/^[█░]{20}$/),
      '1',
    ]);
    await shot(page, 'web-ui-run-details.png');

    // The live visit's own details, rewritten every turn: it waits for a reply, with the command that sends one.
    const visit = await browser.newPage();
    await visit.goto(`${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}.1.triage`);
    await visit.getByText('User Metadata', { exact: true }).click();
    const live = visit.frameLocator('#user-metadata-current-details').locator('body');
    await expect.poll(() => live.textContent(), { timeout: 30_000 }).toContain('Waiting for a reply');
    const liveText = (await live.textContent()) ?? '';
    expect(liveText).toContain('triage · turn 2 (run inference 2) · waiting');
    // The visit's own table counts what the turns wrote: the note is in.
    expect(liveText).toMatch(/notes\s*temporary\s*\d+ \/ 800\s*[█░]{20}\s*1/);
    expect(liveText).toContain('Estimated cost: unknown (no prices for scripted:script.toml in the model table)');
    await shot(visit, 'web-ui-stage-details.png');

    await finish(handle);
  });

  it('sends a message through its update form, which the next inference reads', async () => {
    const { handle, progress } = await waitingRun();
    const page = await browser.newPage();
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}`);

    // More Actions → Send an Update → message, with the text as its JSON argument.
    await page.getByRole('button', { name: 'More Actions' }).click();
    await page.getByRole('menu').getByText('Send an Update').click();
    const form = page.locator('dialog[open]');
    await form.getByTestId('update-select-button').click();
    await form.getByRole('option', { name: 'message', exact: true }).click();
    // The list stays open over the form until something else is clicked.
    await form.getByRole('heading', { name: 'Send an Update' }).click();
    const data = form.getByRole('textbox', { name: 'Data' });
    await data.fill(JSON.stringify(MESSAGE));
    expect(await data.textContent()).toBe(JSON.stringify(MESSAGE));
    await shot(page, 'web-ui-update-form.png');
    await form.getByTestId('confirm-modal-button').click();
    await expect.poll(() => page.locator('dialog[open]').count(), { timeout: 30_000 }).toBe(0);

    // The reply is written into the conversation before the next inference, which reads it.
    await until(async () => ((await progress())?.inferences ?? 0) >= 3, 60_000, 'the inference after the reply');
    const inputs = await inferInputs(client, `${handle.workflowId}.1.triage`);
    expect(inputs).toHaveLength(3);
    expect(inputs[1]).not.toContain(MESSAGE);
    expect(inputs[2]).toContain(MESSAGE);
    await page.locator('a', { hasText: 'Event History' }).first().click();
    await expect.poll(() => page.locator('main').textContent(), { timeout: 30_000 }).toMatch(/Update ?Completed/i);
    await shot(page, 'web-ui-update-history.png');

    await finish(handle);
  });

  it('fails with how to install Chromium, never skips, when the browser it is given is missing', () => {
    const saved = process.env.LEVIATH_CHROMIUM;
    process.env.LEVIATH_CHROMIUM = '/nonexistent/chromium';
    try {
      expect(() => chromiumBinary()).toThrow('LEVIATH_CHROMIUM names /nonexistent/chromium, which does not exist.');
    } finally {
      if (saved === undefined) delete process.env.LEVIATH_CHROMIUM;
      else process.env.LEVIATH_CHROMIUM = saved;
    }
  });
});

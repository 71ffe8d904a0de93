/**
 * `lev serve`'s live page in a real Chromium (docs/reference/http-api.md#the-live-page):
 * a scripted run started over HTTP, its page opened while it works; the
 * window's bars move turn by turn, the model's text streams in, the gated
 * call is approved with the page's button, and the page sees the run finish.
 * The run list links to it. The run's payloads are encrypted with a codec
 * key that the workers and `lev serve` hold: the server decodes, the page
 * only ever talks to its API. Screenshots go to `.leviath/screenshots/`.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openGate, resetGates } from '../../src/providers/index.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { createToolWorker } from '../../src/worker/tool-worker.js';
import { launchChromium, SCREENSHOTS } from './browser.js';
import { connectClient, temporalAddress } from './helpers.js';
import { type LevProcess, startLev } from './lev-process.js';
import { tempDir } from './run-helpers.js';

const FINAL =
  'The night went wrong at 02:14, when the billing job timed out against the ledger database and retried until the queue overflowed; the report in report.md says how to stop it happening again.';

/** The final reply streams half its text, then waits here until the test saw the page show it in part. */
const FINAL_GATE = 'page-final';

/** Three notes of about 40 tokens each: the third evicts the first from the 100-token region. */
function pageBlueprint(name: string): string {
  const dir = tempDir('page-bp');
  const note = (n: number) =>
    `[[turns]]\ntext = "Reading log ${n}."\nlatency_ms = 300\n[[turns.tool_calls]]\nname = "context_append"\narguments = { region = "notes", content = "${`log ${n}: a timeout at 02:1${n}, retries piling up. `.repeat(3)}" }\n`;
  writeFileSync(
    join(dir, 'script.toml'),
    `${note(1)}\n${note(2)}\n${note(3)}
[[turns]]
text = "Writing the report."
[[turns.tool_calls]]
name = "write_file"
arguments = { path = "report.md", content = "# Report\\nA timeout at 02:14." }

[[turns]]
text = "${FINAL}"
text_gate = "${FINAL_GATE}"
`,
  );
  writeFileSync(
    join(dir, 'agent.toml'),
    `[agent]
name = "${name}"
model = "scripted:${join(dir, 'script.toml')}"
[context.regions]
task = { kind = "pinned", max_tokens = 200 }
notes = { kind = "temporary", max_tokens = 100 }
[stages.main]
available_tools = ["context_append", "write_file"]
[tool_permissions]
write_file = "ask"
`,
  );
  return dir;
}

describe("lev serve's live page", () => {
  const stops: (() => Promise<void>)[] = [];
  let serve: LevProcess;
  let base = '';
  const taskQueue = `serve-page-${process.pid}-${Date.now()}`;
  const keyFile = join(tempDir('serve-keys'), 'keys');
  writeFileSync(keyFile, `k1 ${randomBytes(32).toString('base64')}\n`);
  const keyed = { ...process.env, LEVIATH_CODEC_KEY_FILE: keyFile };
  let plain: Awaited<ReturnType<typeof connectClient>>;
  let browser: BrowserContext;
  const workdir = tempDir('page-work');

  beforeAll(async () => {
    plain = await connectClient();
    stops.push(() => plain.connection.close());
    const blobDir = tempDir('serve-page-blobs');
    const main = await createWorker({
      address: temporalAddress(),
      taskQueue,
      bundle: { codePath: inject('workflowBundlePath') },
      runtime: { blobDir, env: keyed },
    });
    const mainRunning = main.worker.run();
    stops.push(async () => {
      main.worker.shutdown();
      await mainRunning;
      await main.connection.close();
    });
    const tools = await createToolWorker({ address: temporalAddress(), workdir, runtime: { blobDir, env: keyed } });
    const toolsRunning = tools.worker.run();
    stops.push(async () => {
      tools.worker.shutdown();
      await toolsRunning;
      await tools.connection.close();
    });
    serve = startLev(['serve', '--port', '0', '--task-queue', taskQueue], {
      TEMPORAL_ADDRESS: temporalAddress(),
      LEVIATH_CODEC_KEY_FILE: keyFile,
      LEVIATH_HOME: tempDir('page-home'),
      LEVIATH_SERVE_TOKEN: '',
    });
    stops.push(async () => {
      serve.child.kill('SIGTERM');
      await serve.exited;
    });
    base = (await serve.waitFor(/lev serve at (http:\/\/\S+) /))[1] as string;
    browser = await launchChromium();
    stops.push(() => browser.close());
  });

  afterAll(async () => {
    openGate(FINAL_GATE);
    for (const stop of stops.reverse()) await stop();
    resetGates();
  });

  it('shows the bars move and the text stream in, approves the gated call and sees the run finish', async () => {
    const name = `paged-${process.pid}`;
    const res = await fetch(`${base}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        blueprint: pageBlueprint(name),
        task: 'what happened at night?',
        workdir,
        attended: true,
      }),
    });
    expect(res.status).toBe(201);
    const { runId } = (await res.json()) as { runId: string };

    const page = await browser.newPage();
    await page.goto(`${base}/runs/${encodeURIComponent(runId)}`);
    // Every state the streaming text was in, as the page showed it.
    await page.evaluate(`(() => {
      const seen = (window.seenTexts = []);
      const live = document.getElementById('live-text');
      new MutationObserver(() => seen.push(live.textContent)).observe(live, { childList: true, characterData: true, subtree: true });
    })()`);

    // The bars: a row per turn, the window filling as the conversation grows.
    await page.locator('.turn').nth(2).waitFor({ timeout: 60_000 });
    const filled: number[] = await page
      .locator('.turn .bar')
      .evaluateAll((bars) =>
        bars.map((bar) =>
          [...(bar as unknown as { children: { style: { width: string } }[] }).children].reduce(
            (sum, seg) => sum + Number.parseFloat(seg.style.width),
            0,
          ),
        ),
      );
    expect(filled.length).toBeGreaterThanOrEqual(3);
    expect(filled.at(-1)).toBeGreaterThan(filled[0] as number);

    // The gated call: approved with the page's button, by keyboard.
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(SCREENSHOTS, 'serve-page-waiting.png'), fullPage: true });
    await approve.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'approve: done' }).waitFor({ timeout: 30_000 });
    // The third note pushed the first out of its region: the next turn's row says so.
    await page.locator('.turn .mark.evicted', { hasText: /^evicted 1 entry \(\d+ tokens\) of notes$/ }).waitFor();

    // The answer streams half its text and waits: the page shows it in part, then whole.
    await page.locator('#live-text', { hasText: FINAL.slice(0, 20) }).waitFor({ timeout: 60_000 });
    expect(((await page.locator('#live-text').textContent()) ?? '').length).toBeLessThan(FINAL.length);
    openGate(FINAL_GATE);

    // The run finishes with its answer, which streamed in: the page showed it in part first.
    await page.locator('#run-summary', { hasText: /^completed/ }).waitFor({ timeout: 60_000 });
    await page.locator('#answer-text', { hasText: FINAL }).waitFor({ timeout: 30_000 });
    const seen = (await page.evaluate('window.seenTexts')) as string[];
    const partial = seen.filter((t) => t.length > 0 && t.length < FINAL.length && FINAL.startsWith(t));
    expect(partial.length, `the text never showed in part: ${JSON.stringify(seen.slice(-5))}`).toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'serve-page-done.png'), fullPage: true });

    // What Temporal stores of the run is sealed: the task is not in its history's bytes.
    const history = await plain.client.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId: runId },
    });
    const input = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(Object.keys(input?.metadata ?? {})).toContain('encryption-key-id');
    expect(Buffer.from(input?.data ?? []).toString('latin1')).not.toContain('what happened at night?');

    // The list, filtered by its address, links to the run.
    await page.goto(`${base}/?blueprint=${name}`);
    await page.getByRole('link', { name: runId }).waitFor({ timeout: 30_000 });
    await page.close();
  });
});

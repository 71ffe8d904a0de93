/**
 * Webhooks of a run on the real dev server (docs/reference/cluster-runs.md#notifications):
 * a local HTTP server the test starts answers the first delivery 500, and
 * the `notifyWebhook` activity delivers again, under the same delivery id,
 * signed per Standard Webhooks (a fresh timestamp and signature each attempt); a receiver that fails more times
 * than the 8 attempts of earlier versions still gets the notice, from a
 * delivery workflow that outlives the run, until its patience runs out; a
 * failed run tells `failed`, and a run that waits for a person's reply tells
 * `waiting` with the command.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_PATCHES_AT_ONCE } from '../../src/runtime/patches.js';
import { DEFAULT_RUN_OPTIONS, type RunResult } from '../../src/runtime/types.js';
import type { Notice, Webhook } from '../../src/shapes/webhooks.js';
import { sendUpdate } from '../../src/worker/operators.js';
import { startRun } from '../../src/worker/run-client.js';
import {
  patchIds,
  runAgent,
  saveHistories,
  scopedEnv,
  scriptedModel,
  tempDir,
  useRuntime,
  writeBlueprint,
} from './run-helpers.js';
import { waitFor } from './worker-processes.js';

const SECRET = 'webhook-secret-for-the-test';

describe('run notifications', () => {
  const env = useRuntime();
  const vars = scopedEnv();
  const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
  /** Answers, in order, for the deliveries to come; 200 once they run out. */
  const answers: number[] = [];
  let server: Server;
  let url = '';

  beforeAll(async () => {
    vars.set({ LEV_TEST_WEBHOOK_SECRET: SECRET });
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += String(d);
      });
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        res.statusCode = answers.shift() ?? 200;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/leviath`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    vars.restore();
  });

  const hook = (): Webhook => ({ url, secretEnv: 'LEV_TEST_WEBHOOK_SECRET', events: ['completed', 'failed'] });

  /** The delivery workflow a run started for its end notice, from the run's history. */
  async function deliveryWorkflow(runId: string): Promise<string> {
    const events = (await env.rt.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
    const started = events
      .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
      .filter((a) => a?.workflowType?.name === 'notifyWorkflow')
      .map((a) => a?.workflowId ?? '');
    expect(started).toHaveLength(1);
    expect(started[0]).toMatch(new RegExp(`^${runId}\\.notify-completed-[0-9a-f]{8}$`));
    return started[0] ?? '';
  }

  async function patchesOf(workflowId: string): Promise<string[]> {
    return patchIds(await env.rt.client.workflow.getHandle(workflowId).fetchHistory());
  }

  it('tells a completed run, signed, and delivers again after a 500 under the same id', async () => {
    seen.length = 0;
    answers.push(500);
    const name = `notify-done-${process.pid}`;
    const bp = writeBlueprint(
      `[agent]\nname = "${name}"\nmodel = "${scriptedModel({ turns: [{ text: 'All done.' }] })}"\n[stages.main]\n`,
    );
    const run = await runAgent(env.rt, bp, { options: { notify: [hook()] } });
    expect(run.result.status).toBe('completed');

    await waitFor(() => seen.length === 2, 60_000);
    await saveHistories(env.rt.client, run.result.runId);
    const [first, second] = seen as [(typeof seen)[0], (typeof seen)[0]];
    expect(second.body).toBe(first.body);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    const signed = `${second.headers['webhook-id']}.${second.headers['webhook-timestamp']}.${second.body}`;
    const expected = `v1,${createHmac('sha256', SECRET).update(signed).digest('base64')}`;
    expect(second.headers['webhook-signature']).toBe(expected);
    const notice = JSON.parse(second.body) as Notice;
    expect(notice).toMatchObject({
      deliveryId: second.headers['webhook-id'],
      event: 'completed',
      runId: run.result.runId,
      blueprint: name,
      status: 'completed',
      command: `lev result ${run.result.runId}`,
    });
    expect(second.headers['x-leviath-event']).toBe('completed');
    expect(notice.costUsd === null || typeof notice.costUsd === 'number').toBe(true);
  });

  it('tells a failed run what it failed with', async () => {
    seen.length = 0;
    const name = `notify-fail-${process.pid}`;
    const bp = writeBlueprint(
      `[agent]\nname = "${name}"\nmodel = "scripted:no-such-script-${process.pid}"\n[stages.main]\n`,
    );
    const run = await runAgent(env.rt, bp, { options: { notify: [hook()] } });
    expect(run.result.status).toBe('failed');
    await waitFor(() => seen.length === 1, 60_000);
    await saveHistories(env.rt.client, run.result.runId);
    const notice = JSON.parse(seen[0]!.body) as Notice;
    expect(notice).toMatchObject({ event: 'failed', status: 'failed', runId: run.result.runId, blueprint: name });
    expect(notice.error).toContain('scripted-script-missing');
    expect(notice.command).toBe(`lev show ${run.result.runId}`);
  });

  it('tells when a run waits for a reply, with the command that answers', async () => {
    seen.length = 0;
    const model = scriptedModel({ turns: [{ text: 'Which region should I look at?' }] });
    const bp = writeBlueprint(
      `[agent]\nname = "notify-ask-${process.pid}"\n[stages.ask]\nmode = "interactive"\nmodel = "${model}"\n`,
    );
    const waiting: Webhook = { url, events: ['waiting', 'completed'] };
    const handle = await startRun(
      env.rt.client,
      {
        blueprint: bp,
        caller: {},
        workdir: tempDir('notify-ask'),
        options: { ...DEFAULT_RUN_OPTIONS, notify: [waiting] },
      },
      { taskQueue: env.rt.taskQueue },
    );
    await waitFor(() => seen.length > 0, 60_000);
    const notice = JSON.parse(seen[0]!.body) as Notice;
    expect(notice).toMatchObject({
      event: 'waiting',
      status: 'running',
      runId: handle.workflowId,
      waiting: { kind: 'reply' },
      command: `lev msg ${handle.workflowId} "…"`,
    });
    // Unsigned without a secret.
    expect(seen[0]!.headers['webhook-signature']).toBeUndefined();
    await sendUpdate(env.rt.client, handle.workflowId, 'message', '/done');
    expect(((await handle.result()) as RunResult).status).toBe('completed');
    await waitFor(() => seen.length === 2, 60_000);
    await saveHistories(env.rt.client, handle.workflowId);
    expect(seen.map((r) => (JSON.parse(r.body) as Notice).event)).toEqual(['waiting', 'completed']);
  });

  it('delivers after more failures than 8 attempts, from a workflow that outlives the run', async () => {
    seen.length = 0;
    const failures = 10;
    answers.push(...Array.from({ length: failures }, () => 500));
    const bp = writeBlueprint(
      `[agent]\nname = "notify-patient-${process.pid}"\nmodel = "${scriptedModel({ turns: [{ text: 'Done.' }] })}"\n[stages.main]\n`,
    );
    const run = await runAgent(env.rt, bp, {
      options: { notify: [hook()], notifyBackoff: { firstWaitMs: 200, longestWaitMs: 500 } },
    });
    expect(run.result.status).toBe('completed');
    const runId = run.result.runId;
    const delivery = await deliveryWorkflow(runId);
    expect(await env.rt.client.workflow.getHandle(delivery).result()).toEqual({ delivered: 1 });
    await saveHistories(env.rt.client, runId);
    expect(seen).toHaveLength(failures + 1);
    expect(new Set(seen.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(seen.map((r) => r.body)).size).toBe(1);
    // The run started the delivery and ended; the delivery went on after it.
    const events = (await run.handle.fetchHistory()).events ?? [];
    expect(events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'notifyWebhook')).toBe(
      false,
    );
    const ran = await run.handle.describe();
    const delivered = await env.rt.client.workflow.getHandle(delivery).describe();
    expect(ran.closeTime!.getTime()).toBeLessThan(delivered.closeTime!.getTime());
    // One marker stands for the run's every patch, RUN_NOTIFY_PATIENCE's delivery apart among them.
    expect(await patchesOf(runId)).toEqual([RUN_PATCHES_AT_ONCE]);
  });

  it('gives up once the patience of the webhook has run out', async () => {
    seen.length = 0;
    answers.push(...Array.from({ length: 1000 }, () => 503));
    try {
      const bp = writeBlueprint(
        `[agent]\nname = "notify-gives-up-${process.pid}"\nmodel = "${scriptedModel({ turns: [{ text: 'Done.' }] })}"\n[stages.main]\n`,
      );
      const run = await runAgent(env.rt, bp, {
        options: {
          notify: [{ ...hook(), patienceSecs: 2 }],
          notifyBackoff: { firstWaitMs: 100, longestWaitMs: 200 },
        },
      });
      expect(run.result.status).toBe('completed');
      const delivery = await deliveryWorkflow(run.result.runId);
      expect(await env.rt.client.workflow.getHandle(delivery).result()).toEqual({ delivered: 0 });
      await saveHistories(env.rt.client, run.result.runId);
      expect(seen.length).toBeGreaterThan(1);
    } finally {
      answers.length = 0;
    }
  });
});

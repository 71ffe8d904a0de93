/**
 * Flow control shared by every run of a worker (docs/reference/long-runs.md#flow-control):
 * twenty runs on one worker, whose user config holds OpenAI to
 * `max_concurrent = 3`, against a local OpenAI-compatible server that
 * answers 429 until every run waits for it
 * (docs/reference/long-runs.md#provider-outages); the server never sees
 * more than three calls at once, and every run completes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_KEY } from '../../src/runtime/search-attributes.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { startRun } from '../../src/worker/run-client.js';
import { chatCompletion, startWireServer, type WireServer } from '../providers/wire-server.js';
import { saveHistories, scopedEnv, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

const RUNS = 20;

describe('twenty runs on one worker against a provider that rate-limits them', () => {
  const env = useRuntime();
  const vars = scopedEnv();
  let server: WireServer;

  beforeAll(async () => {
    const config = join(tempDir('limits'), 'config.toml');
    writeFileSync(config, '[rate_limits.openai]\nmax_concurrent = 3\n');
    server = await startWireServer(() => ({ json: chatCompletion({ content: 'Done.' }) }));
    vars.set({
      LEVIATH_CONFIG: config,
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: 'sk-flow-control-0123456789abcdef',
    });
  });
  afterAll(async () => {
    await server.close();
    vars.restore();
  });

  it('stays within max_concurrent through a 429 storm, and every run completes', async () => {
    // The storm lasts until every run has met it and waits for the provider (its calls refused by
    // the server or, once three were, by the worker's open circuit).
    let storm = true;
    let answered = 0;
    server.respond(() => {
      if (storm)
        return {
          status: 429,
          headers: { 'retry-after': '1' },
          json: { error: { message: 'Rate limit reached for requests per min.', type: 'requests' } },
        };
      answered++;
      return { delayMs: 400, json: chatCompletion({ content: `Done ${answered}.` }) };
    });
    const bp = writeBlueprint(`[agent]\nname = "storm"\nmodel = "openai:gpt-4o"\n[stages.main]\n`);
    const handles = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        startRun(
          env.rt.client,
          {
            blueprint: bp,
            task: `Answer ${i}.`,
            caller: {},
            workdir: tempDir('storm'),
            options: DEFAULT_RUN_OPTIONS,
          },
          { taskQueue: env.rt.taskQueue },
        ),
      ),
    );
    const waiting = async (h: WorkflowHandle) =>
      (await h.describe()).typedSearchAttributes.get(STATUS_KEY) === 'waiting';
    while (!(await Promise.all(handles.map(waiting))).every(Boolean)) await new Promise((r) => setTimeout(r, 200));
    storm = false;
    const results = await Promise.all(handles.map((h) => h.result()));
    for (const h of handles) await saveHistories(env.rt.client, h.workflowId);
    expect(results.map((r) => r.status)).toEqual(Array(RUNS).fill('completed'));
    expect(answered).toBe(RUNS);
    expect(server.concurrency.peak).toBeGreaterThanOrEqual(2);
    expect(server.concurrency.peak).toBeLessThanOrEqual(3);
    // No run gave up on the provider for the 429s: nothing moved a chain or failed.
    for (const r of results)
      expect(r.diagnostics.filter((d: { code: string }) => d.code === 'model-fallback')).toEqual([]);
  });
});

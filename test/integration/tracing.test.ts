/**
 * Traces (docs/reference/operating.md#traces): with `OTEL_EXPORTER_OTLP_ENDPOINT` naming a local
 * OTLP/HTTP collector this test starts, a worker and a client export the run's start, the run
 * and its stage visit from inside the workflows, each activity, and Leviath's spans of the model
 * and tool calls, with the run, stage and model: one trace, each span the child of the one that
 * started it.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { flushTracing, startTracing, tracingClientInterceptors } from '../../src/telemetry/tracing.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { runOutcome, startRun } from '../../src/worker/run-client.js';
import { temporalAddress } from './helpers.js';
import { saveHistories, tempDir, writeBlueprint } from './run-helpers.js';

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const SCRIPT = `
[[turns]]
text = "Reading the data."
[[turns.tool_calls]]
name = "read_file"
arguments = { path = "data.txt" }

[[turns]]
text = "Two lines."
`;

describe('OpenTelemetry traces', () => {
  let collector: Server;
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  beforeAll(async () => {
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        paths.push(req.url ?? '');
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
        };
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    process.env.OTEL_SERVICE_NAME = 'leviath-test';
  });
  afterAll(async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    collector?.close();
  });

  it('exports the run start, the activities and the model and tool calls to the OTLP collector', async () => {
    expect(startTracing()).toBe(true);
    const taskQueue = `traces-${process.pid}`;
    const { worker, connection: workerConnection } = await createWorker({
      address: temporalAddress(),
      taskQueue,
      bundle: { codePath: inject('workflowBundlePath') },
      runtime: { blobDir: tempDir('trace-blobs'), env: process.env },
    });
    const running = worker.run();
    const connection = await Connection.connect({ address: temporalAddress() });
    try {
      const client = new Client({ connection, interceptors: tracingClientInterceptors() });
      const bp = writeBlueprint(
        `
[agent]
name = "traced"
model = "scripted:script.toml"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
conversation = { kind = "sliding_window", max_tokens = 4000 }
[stages.work]
available_tools = ["read_file"]
`,
        { 'script.toml': SCRIPT },
      );
      const workdir = tempDir('trace-work');
      writeFileSync(join(workdir, 'data.txt'), 'one\ntwo\n');
      const handle = await startRun(
        client,
        {
          blueprint: bp,
          task: 'read',
          caller: {},
          workdir,
          options: { ...DEFAULT_RUN_OPTIONS, toolTaskQueue: taskQueue },
        },
        { taskQueue },
      );
      expect((await runOutcome(handle)).status).toBe('completed');
      // This file's replay (replay-each-file.ts) replays the traced run's histories too.
      await saveHistories(client, handle.workflowId);
      // The run's own span ends with the run; the worker hands it over once the last activation is done.
      await expect
        .poll(
          async () => {
            await flushTracing();
            return spans.some((s) => s.name === 'RunWorkflow:agentRunWorkflow');
          },
          { timeout: 30_000 },
        )
        .toBe(true);
      await expect.poll(() => spans.filter((s) => s.name === 'leviath.inference').length, { timeout: 20_000 }).toBe(2);
      expect(paths.every((p) => p === '/v1/traces')).toBe(true);
      const names = new Set(spans.map((s) => s.name));
      expect(names).toContain('StartWorkflow:agentRunWorkflow');
      expect(names).toContain('RunActivity:infer');
      expect(names).toContain('RunActivity:runTool');
      expect(names).toContain('leviath.tool read_file');
      const attr = (s: OtlpSpan | undefined, key: string) => {
        const v = s?.attributes?.find((a) => a.key === key)?.value;
        return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : undefined);
      };
      const inference = spans.find((s) => s.name === 'leviath.inference');
      // One trace from the client's start down to the model call, each span inside the one that started it.
      const lineage = (span: OtlpSpan | undefined): string[] => {
        const names: string[] = [];
        for (let at = span; at; at = spans.find((s) => s.spanId === at?.parentSpanId && s.traceId === at.traceId))
          names.push(at.name);
        return names;
      };
      expect(lineage(inference)).toEqual([
        'leviath.inference',
        'RunActivity:infer',
        'StartActivity:infer',
        'RunWorkflow:stageWorkflow',
        'StartChildWorkflow:stageWorkflow',
        'RunWorkflow:agentRunWorkflow',
        'StartWorkflow:agentRunWorkflow',
      ]);
      expect(lineage(spans.find((s) => s.name === 'leviath.tool read_file')).slice(0, 4)).toEqual([
        'leviath.tool read_file',
        'RunActivity:runTool',
        'StartActivity:runTool',
        'RunWorkflow:stageWorkflow',
      ]);
      const start = spans.find((s) => s.name === 'StartWorkflow:agentRunWorkflow');
      expect(start?.parentSpanId ?? '').toBe('');
      const run = spans.filter((s) => s.traceId === start?.traceId).map((s) => s.name);
      expect(run).toContain('RunActivity:registerBlueprint');
      expect(run.filter((n) => n === 'leviath.inference')).toHaveLength(2);
      expect(attr(inference, 'leviath.run_id')).toBe(handle.workflowId);
      expect(attr(inference, 'leviath.stage')).toBe('work');
      expect(attr(inference, 'gen_ai.request.model')).toBe('scripted:script.toml');
      expect(
        attr(
          spans.find((s) => s.name === 'leviath.tool read_file'),
          'leviath.outcome',
        ),
      ).toBe('ok');

      // A run whose starter does not trace: its workflows trace nothing, its activities still do, each a trace of its own.
      const untraced = await startRun(
        new Client({ connection }),
        {
          blueprint: bp,
          task: 'read',
          caller: {},
          workdir,
          options: { ...DEFAULT_RUN_OPTIONS, toolTaskQueue: taskQueue },
        },
        { taskQueue },
      );
      expect((await runOutcome(untraced)).status).toBe('completed');
      const ofUntraced = (s: OtlpSpan) => attr(s, 'leviath.run_id') === untraced.workflowId;
      await expect
        .poll(
          async () => {
            await flushTracing();
            return spans.filter(ofUntraced).length;
          },
          { timeout: 30_000 },
        )
        .toBe(3);
      for (const span of spans.filter(ofUntraced)) expect(lineage(span)).toHaveLength(2);
      expect(spans.filter((s) => s.name === 'RunWorkflow:agentRunWorkflow')).toHaveLength(1);
    } finally {
      worker.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
    }
  });
});

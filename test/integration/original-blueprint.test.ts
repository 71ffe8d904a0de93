/**
 * A three-stage blueprint in the original Leviath's style (`agent.leviath`,
 * fallback chains, an output stage with a JSON schema) run end to end: the
 * first provider of the chain rejects the key (a local OpenAI-compatible
 * server answering 401), the run moves to the next entry and says so, and
 * the output stage's first, invalid submission goes back to the model before
 * a valid one ends the run.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { printRunResult } from '../../src/cli/result-action.js';
import { DEFAULT_RUN_OPTIONS, type Progress } from '../../src/runtime/types.js';
import { sendUpdate } from '../../src/worker/operators.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { connectClient, temporalAddress } from './helpers.js';
import {
  runAgent,
  saveHistories,
  scopedEnv,
  scriptedModel,
  startRuntime,
  type TestRuntime,
  tempDir,
  writeBlueprint,
} from './run-helpers.js';

const KEY = 'sk-it-rejected-3f09a1c7d2';

function rejectingServer(received: IncomingHttpHeaders[]): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.headers);
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** The payloads of every completed activity in a workflow's history, as text. */
async function activityResults(rt: TestRuntime, workflowId: string): Promise<string[]> {
  const history = await rt.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    (e.activityTaskCompletedEventAttributes?.result?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString()),
  );
}

describe('a blueprint written for the original Leviath', () => {
  const received: IncomingHttpHeaders[] = [];
  const vars = scopedEnv();
  let server: Server;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;

  beforeAll(async () => {
    server = await rejectingServer(received);
    vars.set({
      OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      OPENAI_API_KEY: KEY,
      ANTHROPIC_API_KEY: undefined,
    });
    conn = await connectClient();
    rt = await startRuntime(conn.client);
  });
  afterAll(async () => {
    await rt?.stop();
    await conn?.connection.close();
    await new Promise((r) => server?.close(r));
    vars.restore();
  });

  it('falls back past a rejected key, refuses an invalid answer, and ends with the valid one', async () => {
    const model = scriptedModel({
      turns: [
        {
          stage: 'gather',
          text: 'Reading the notes.',
          tool_calls: [{ name: 'read_file', arguments: { path: 'notes.md' } }],
        },
        { stage: 'gather', text: 'Gathered.' },
        {
          stage: 'analyze',
          text: 'Recording the claim.',
          tool_calls: [
            { name: 'context_append', arguments: { region: 'claims', content: 'Cache misses double at noon.' } },
          ],
        },
        { stage: 'analyze', text: 'Analysis done.' },
        {
          stage: 'report',
          text: 'Submitting.',
          tool_calls: [
            { name: 'submit_output', arguments: { content: '{"summary": "Cache misses double at noon."}' } },
          ],
        },
        {
          stage: 'report',
          text: 'Adding the missing confidence.',
          tool_calls: [
            {
              name: 'submit_output',
              arguments: { content: '{"summary": "Cache misses double at noon.", "confidence": "high"}' },
            },
          ],
        },
        { stage: 'report', text: 'This turn is never asked for: the run ends after a valid submission.' },
      ],
    });
    const scripted = model.slice('scripted:'.length);
    const chain = `model = { models = [{ provider = "openai", model = "gpt-5.6-terra" }, { provider = "scripted", model = "${scripted}" }] }`;
    const dir = tempDir('original-bp');
    writeFileSync(
      join(dir, 'agent.leviath'),
      `[agent]
name = "cache-report"
version = "0.1.0"
description = "Reads notes on a cache, weighs them, and hands back a JSON verdict"
entry_stage = "gather"

# ─── Stage 1: Gather ──────────────────────────────────────────────────────────
[stages.gather]
mode = "autonomous"
${chain}
description = "Read the notes"
available_tools = ["read_file"]
max_iterations = 5
system_prompt = "Read notes.md."

[stages.gather.transitions.analyze]
hint = "Notes read"

# ─── Stage 2: Analyze ─────────────────────────────────────────────────────────
[stages.analyze]
mode = "autonomous"
${chain}
description = "Extract the claims"
available_tools = ["context_append"]
max_iterations = 5
system_prompt = "Append each claim to claims."

[stages.analyze.transitions.report]
hint = "Claims extracted"

# ─── Stage 3: Report (terminal) ───────────────────────────────────────────────
[stages.report]
mode = "output"
${chain}
description = "Hand back the verdict"
max_iterations = 5
system_prompt = "Submit the verdict."

[stages.report.output]
format = "json"
instructions = "An object with summary and confidence."

[stages.report.output.schema]
type = "object"
required = ["summary", "confidence"]

[stages.report.transitions]

[compaction]
provider = "scripted"
model = "${scripted}"

[context.regions]
topic  = { kind = "pinned", budget = "2%", max_tokens = 1000, required = true, seed = "task" }
claims = { kind = "sliding_window", max_items = 10, max_tokens = 2000 }
stage_instructions = { kind = "pinned", max_tokens = 1000, volatility = "stable" }
`,
    );
    const loaded = loadBlueprint(dir);
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const bp = loaded.blueprint;
    if (!bp) throw new Error('blueprint did not load');
    const workdir = tempDir('original-work');
    writeFileSync(join(workdir, 'notes.md'), 'At noon the cache misses double.\n');

    const run = await runAgent(rt, bp, { task: 'Why is the cache slow at noon?', workdir });

    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['gather', 'analyze', 'report']);
    expect(run.result.outputFormat).toBe('json');
    expect(JSON.parse(run.result.output)).toEqual({ summary: 'Cache misses double at noon.', confidence: 'high' });

    // One rejected request, with the key; then the run never asks that provider again.
    expect(received).toHaveLength(1);
    expect(received[0]?.authorization).toBe(`Bearer ${KEY}`);
    const fallbacks = run.result.diagnostics.filter((d) => d.code === 'model-fallback');
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]?.detail).toMatch(/^openai:gpt-5\.6-terra unusable .*stage "gather"/);

    const memo = (await run.handle.describe()).memo as {
      output?: { format: string; text: string };
      diagnostics?: { code: string }[];
    };
    expect(memo.output).toMatchObject({ format: 'json', text: run.result.output });
    expect(memo.diagnostics?.map((d) => d.code)).toContain('model-fallback');

    // The first submission went back to the model with the reason; the second was accepted.
    const results = (await activityResults(rt, `${run.result.runId}.3.report`)).join('\n');
    expect(results).toMatch(/\[output-invalid\] the answer does not match the schema: .*confidence/);
    expect(results).toContain('Final output accepted (json');
  });

  it('lev result prints the answer of a finished run, and its label with --json', async () => {
    const model = scriptedModel({
      turns: [{ text: 'Done.', tool_calls: [{ name: 'submit_output', arguments: { content: 'a: 1\n' } }] }],
    });
    const bp = writeBlueprint(
      `[stages.answer]\nmode = "output"\nmodel = "${model}"\n[stages.answer.output]\nformat = "yaml"\n`,
    );
    const run = await runAgent(rt, bp);
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      const flags = { address: temporalAddress(), namespace: 'default' };
      await printRunResult(run.result.runId, flags);
      await printRunResult(run.result.runId, { ...flags, json: true });
    } finally {
      write.mockRestore();
    }
    expect(out[0]).toBe('a: 1\n');
    expect(JSON.parse(out[1] ?? '')).toEqual({
      runId: run.result.runId,
      status: 'completed',
      stages: ['answer'],
      output: { format: 'yaml', text: 'a: 1\n' },
      usage: run.result.usage,
      cost: run.result.cost,
    });
    expect(run.result.usage.calls).toBe(1);
    await expect(printRunResult('no-such-run', { address: temporalAddress(), namespace: 'default' })).rejects.toThrow(
      /No run "no-such-run"/,
    );
  });

  it('an interactive stage waits for each reply through the message update, and /done ends it', async () => {
    const model = scriptedModel({
      turns: [
        { stage: 'decide', text: 'Proposed severity: sev2.' },
        { stage: 'decide', text: 'Revised severity: sev1.' },
        { stage: 'decide', text: 'This turn is never asked for.' },
      ],
    });
    const bp = writeBlueprint(`[stages.decide]\nmode = "interactive"\nmodel = "${model}"\n`);
    const handle = await startRun(
      rt.client,
      { blueprint: bp, caller: {}, workdir: tempDir('interactive'), options: DEFAULT_RUN_OPTIONS },
      { taskQueue: rt.taskQueue },
    );
    const replies = ['It is customer-facing, make it sev1.', '/done'];
    const asked: Progress[] = [];
    const result = await followRun(rt.client, handle, () => {}, {
      intervalMs: 100,
      onWaiting: async (p) => {
        asked.push(p);
        await sendUpdate(rt.client, handle.workflowId, 'message', replies.shift() ?? '/done');
      },
    });
    await saveHistories(rt.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Revised severity: sev1.');
    expect(asked.map((p) => [p.stage, p.visitTurns])).toEqual([
      ['decide', 1],
      ['decide', 2],
    ]);
  });

  it('the example blueprints/incident-brief runs on the scripted model at the end of its chains', async () => {
    const loaded = loadBlueprint('blueprints/incident-brief');
    if (!loaded.blueprint) throw new Error(JSON.stringify(loaded.diagnostics));
    received.length = 0;
    const run = await runAgent(rt, loaded.blueprint, {
      task: 'Read incident.log and brief the on-call engineer on the checkout failures.',
      caller: { audience: 'the payments team' },
      workdir: join(process.cwd(), 'blueprints/incident-brief/workspace'),
    });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['triage', 'weigh', 'brief']);
    expect(run.result.outputFormat).toBe('json');
    expect(JSON.parse(run.result.output)).toMatchObject({ window: '10:00:31-10:02:00 UTC' });
    // Anthropic has no key, so triage asks OpenAI once (refused); from then on the run skips OpenAI everywhere.
    const fallbacks = run.result.diagnostics.filter((d) => d.code === 'model-fallback');
    expect(fallbacks.map((d) => d.detail.split(' ')[0])).toEqual(['openai:gpt-5.6-terra']);
    expect(received).toHaveLength(1);
  });
});

/**
 * The README's main job, `npm run demo`, as a test: the demo agent on the
 * scripted model, end to end through the real runtime.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { connectClient } from './helpers.js';
import { type RunOutcome, runAgent, startRuntime, type TestRuntime } from './run-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the demo agent', () => {
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;
  let run: RunOutcome;

  beforeAll(async () => {
    conn = await connectClient();
    rt = await startRuntime(conn.client);
    const bp = loadBlueprint(join(ROOT, 'blueprints/demo')).blueprint!;
    run = await runAgent(rt, bp, {
      task: "Find the root cause of last night's billing outage in logs/ and write a short incident report.",
      workdir: join(ROOT, 'blueprints/demo/workspace'),
    });
  });
  afterAll(async () => {
    await rt?.stop();
    await conn?.connection.close();
  });

  const region = (name: string) => run.result.regions.find((r) => r.name === name)!;

  it('completes both stages and returns the report written to final_output', () => {
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['investigate', 'report']);
    expect(run.result.output).toMatch(/^Incident 2026-11-28.*connection pool/);
    expect(run.result.gatesForced).toEqual([]);
  });

  it('counts every model call in the usage ledger, the compaction summary included', () => {
    // Ten turns across the two stages, plus the summary that folded the first log read.
    expect(run.result.usage.calls).toBe(11);
    expect(run.result.usage.perStage.investigate?.calls).toBe(9);
    expect(run.result.usage.promptTokens).toBeGreaterThan(0);
  });

  it('keeps the task pinned and unchanged on every turn while other regions shed', () => {
    const taskTokens = new Set(run.turns.map((t) => t.regions.find((r) => r.name === 'task')!.tokens));
    expect(taskTokens.size).toBe(1);
    expect([...taskTokens][0]).toBeGreaterThan(0);
    // Two 2,400-token log reads overflowed the compacting region: the older one was folded into history.
    expect(Math.max(...run.turns.map((t) => t.regions.find((r) => r.name === 'codebase')!.tokens))).toBeLessThanOrEqual(
      region('codebase').budget,
    );
    expect(region('codebase').tokens).toBe(2400);
    expect(region('history').tokens).toBeGreaterThan(0);
    // context_delete released the directory listing the agent no longer needed.
    expect(Math.max(...run.turns.map((t) => t.regions.find((r) => r.name === 'scratch')!.tokens))).toBeGreaterThan(0);
    expect(region('scratch').tokens).toBe(0);
  });

  it('blocks the transition once while a todo is open, then passes', async () => {
    const history = await conn.client.workflow.getHandle(`${run.handle.workflowId}.2.investigate`).fetchHistory();
    expect(history.events?.length).toBeGreaterThan(0);
    const visits: string[] = [];
    for await (const wf of conn.client.workflow.list({ query: `WorkflowId STARTS_WITH '${run.handle.workflowId}.'` }))
      visits.push(wf.workflowId);
    // investigate ran, was sent back by the gate, ran again, then report.
    expect(visits.sort()).toEqual([
      `${run.handle.workflowId}.1.investigate`,
      `${run.handle.workflowId}.2.investigate`,
      `${run.handle.workflowId}.3.report`,
    ]);
    expect(region('todos').tokens).toBeGreaterThan(0);
  });
});

/**
 * `lev fork` on the real dev server (docs/reference/cluster-runs.md#fork):
 * a fork's first prompt is, byte for byte, the prompt its original's next
 * inference read after the turn it was forked at (the scripted provider
 * records a digest of every prompt it serves), for a run of one visit, a
 * run of two stage visits, a run that continued as new and a fan-out
 * worker; the original's histories are the same before and after; the
 * fork records its origin and the original lists it; turns and stages that
 * do not exist are coded errors.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import { type ScriptedCall, scriptedCalls } from '../../src/providers/index.js';
import { idSegment } from '../../src/runtime/index.js';
import { FORK_KEY } from '../../src/runtime/search-attributes.js';
import type { ChildRunResult, RunMemo, RunResult } from '../../src/runtime/types.js';
import { type ForkWanted, forkRun } from '../../src/worker/forks.js';
import { viewRun } from '../../src/worker/runs.js';
import { lev } from '../cli/lev-in-process.js';
import { temporalAddress } from './helpers.js';
import { runAgent, saveHistories, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';
import { waitFor } from './worker-processes.js';

const append = (content: string) => ({ name: 'context_append', arguments: { region: 'notes', content } });

/** JSON with every object's keys sorted: the server sends a history's maps (memo, headers, marker details) in any order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('base64'));
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Every history of a run (its runs, its visits', its sub-agents'), serialised, by workflow and run id. */
async function histories(client: Client, runId: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const wf of client.workflow.list({
    query: `WorkflowId = '${runId}' OR WorkflowId STARTS_WITH '${runId}.' OR WorkflowId STARTS_WITH '${runId}/'`,
  })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const json = canonical(proto.temporal.api.history.v1.History.toObject(history as never, { longs: String }));
    out.set(
      `${wf.workflowId} ${wf.runId}`,
      `${history.events?.length} events, sha256 ${createHash('sha256').update(json).digest('hex')}`,
    );
  }
  return out;
}

/** The turns the scripted model served a run, in the order of their ordinals (one per ordinal). */
function served(runId: string): ScriptedCall[] {
  const byTurn = new Map<number, ScriptedCall>();
  for (const c of scriptedCalls()) if (c.runId === runId && c.purpose === 'turn') byTurn.set(c.turn, c);
  return [...byTurn.values()].sort((a, b) => a.turn - b.turn);
}

async function codeOf(work: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await work();
  } catch (err) {
    return isLevError(err) ? err.code : String(err);
  }
  return undefined;
}

describe('lev fork', () => {
  const env = useRuntime();
  const address = () => temporalAddress();

  /** Forks `runId`, waits for the fork to end and keeps its histories; the original's histories must not change. */
  async function fork(runId: string, want: ForkWanted) {
    const before = await histories(env.rt.client, runId);
    const forked = await forkRun(env.rt.client, runId, want, address());
    const handle = env.rt.client.workflow.getHandle(forked.runId);
    const result = (await handle.result()) as RunResult | ChildRunResult;
    await saveHistories(env.rt.client, forked.runId);
    expect(await histories(env.rt.client, runId)).toEqual(before);
    return { forked, result, calls: served(forked.runId) };
  }

  it("starts from the region set after turn N: its first prompt is the original's prompt at turn N+1", async () => {
    const name = `forked-${process.pid}`;
    const model = scriptedModel({
      turns: [
        { text: 'Noting.', tool_calls: [append('the cache is cold')] },
        { text: 'Planning.', tool_calls: [{ name: 'todo_add', arguments: { region: 'todos', item: 'warm it' } }] },
        { text: 'Noting more.', tool_calls: [append('the pool is small')] },
        { text: 'Noting last.', tool_calls: [append('the retries pile up')] },
        { text: 'Three findings.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "${name}"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\nnotes = { kind = "temporary", max_tokens = 2000 }\ntodos = { kind = "checklist", max_tokens = 500 }\n[stages.main]\navailable_tools = ["context_append", "todo_add"]\n`,
    );
    const run = await runAgent(env.rt, bp, { task: 'Find out why the service is slow.' });
    expect(run.result.status).toBe('completed');
    const runId = run.handle.workflowId;
    const original = served(runId);
    expect(original.map((c) => c.turn)).toEqual([0, 1, 2, 3, 4]);

    const { forked, result, calls } = await fork(runId, { turn: 2 });
    expect(forked).toMatchObject({
      forkOf: runId,
      turn: 2,
      stage: null,
      startsIn: 'main',
      taskQueue: env.rt.taskQueue,
    });
    expect(forked.runId).toMatch(new RegExp(`^${name}-fork-`));
    // The fork's first inference is the original's third, read from the same bytes; the rest follow the script.
    expect(calls.map((c) => c.turn)).toEqual([2, 3, 4]);
    expect(calls[0]?.prompt).toBe(original[2]?.prompt);
    expect(original[2]?.prompt).not.toBe(original[1]?.prompt);
    expect(result).toMatchObject({ status: 'completed', output: 'Three findings.', stages: ['main'] });
    expect(result.usage.calls).toBe(3);

    // The fork says where it came from; the original lists it (visibility catches up).
    const info = await env.rt.client.workflow.getHandle(forked.runId).describe();
    expect((info.memo as RunMemo).forkedFrom).toEqual({ runId, turn: 2 });
    expect(info.typedSearchAttributes.get(FORK_KEY)).toBe(runId);
    expect((await viewRun(env.rt.client, forked.runId, address())).forkedFrom).toEqual({ runId, turn: 2 });
    await waitFor(async () => (await viewRun(env.rt.client, runId, address())).forks.length === 1, 30_000);
    expect((await viewRun(env.rt.client, runId, address())).forks).toEqual([
      { runId: forked.runId, turn: 2, stage: null, model: null, status: 'completed' },
    ]);

    // `lev fork` itself, as a user runs it: the JSON of the fork it started, and a coded refusal.
    const cli = await lev(['fork', runId, '--turn', '0', '--json'], { env: { TEMPORAL_ADDRESS: address() } });
    expect(cli.code).toBe(0);
    const printed = JSON.parse(cli.stdout) as { runId: string; forkOf: string; turn: number };
    expect(printed).toMatchObject({ forkOf: runId, turn: 0 });
    const first = (await env.rt.client.workflow.getHandle(printed.runId).result()) as RunResult;
    await saveHistories(env.rt.client, printed.runId);
    expect(first.output).toBe('Three findings.');
    expect(served(printed.runId)[0]?.prompt).toBe(original[0]?.prompt);
    const refused = await lev(['fork', runId, '--turn', '5'], { env: { TEMPORAL_ADDRESS: address() } });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('[fork-turn-unknown]');
    expect(refused.stderr).toContain('--turn takes 0 to 4');

    // With another model, every stage of the fork answers from it, from the same region set.
    const other = scriptedModel({ repeat: true, turns: [{ text: 'Another model, another answer.' }] });
    const switched = await fork(runId, { turn: 3, model: other });
    expect(switched.forked.model).toBe(other);
    expect(switched.result.output).toBe('Another model, another answer.');
    expect(switched.calls.map((c) => c.turn)).toEqual([3]);
    const switchedInfo = await env.rt.client.workflow.getHandle(switched.forked.runId).describe();
    expect((switchedInfo.memo as RunMemo).forkedFrom).toEqual({ runId, turn: 3, model: other });

    expect(await codeOf(() => forkRun(env.rt.client, runId, { turn: 9 }, address()))).toBe('fork-turn-unknown');
    expect(await codeOf(() => forkRun(env.rt.client, runId, { turn: 0, stage: 'nope' }, address()))).toBe(
      'fork-stage-unknown',
    );
    expect(await codeOf(() => forkRun(env.rt.client, `no-such-run-${process.pid}`, { turn: 0 }, address()))).toBe(
      'run-not-found',
    );
    expect(await codeOf(() => forkRun(env.rt.client, `${runId}.1.main`, { turn: 0 }, address()))).toBe('run-not-found');
  });

  it('forks at the visit of a stage, counting its turns, in a run of two stage visits', async () => {
    const model = scriptedModel({
      turns: [
        { stage: 'plan', text: 'Planning.', tool_calls: [append('plan: cache first')] },
        { stage: 'plan', text: 'Planned.' },
        { stage: 'build', text: 'Building.', tool_calls: [append('built the cache')] },
        { stage: 'build', text: 'Testing.', tool_calls: [append('tests pass')] },
        { stage: 'build', text: 'Built and tested.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "forked-stages-${process.pid}"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\nnotes = { kind = "temporary", max_tokens = 2000 }\n[stages.plan]\navailable_tools = ["context_append"]\n[stages.plan.transitions.build]\n[stages.build]\navailable_tools = ["context_append"]\n`,
    );
    const run = await runAgent(env.rt, bp, { task: 'Add a cache.' });
    expect(run.result).toMatchObject({ status: 'completed', stages: ['plan', 'build'] });
    const runId = run.handle.workflowId;
    const build = served(runId).filter((c) => c.stage === 'build');
    expect(build).toHaveLength(3);

    const { result, calls } = await fork(runId, { turn: 1, stage: 'build' });
    expect(calls[0]).toMatchObject({ stage: 'build', turn: build[1]?.turn, prompt: build[1]?.prompt });
    expect(result).toMatchObject({ status: 'completed', output: 'Built and tested.', stages: ['build'] });
    // Counted over the whole run, the same turn is the run's turn N.
    const again = await fork(runId, { turn: build[1]?.turn ?? -1 });
    expect(again.calls[0]?.prompt).toBe(build[1]?.prompt);
  });

  it('forks a run that continued as new, after a turn of a later run of its workflow', async () => {
    // The run continues as new well before turn 12 even when a loaded machine batches the visit's
    // reports. The visit never goes on as new alone (turnsPerRun stays 100), so every run of the
    // chain ends in a hand-over.
    const turns = 16;
    const model = scriptedModel({
      turns: [
        ...Array.from({ length: turns }, (_, i) => ({
          text: `Pass ${i + 1}.`,
          tool_calls: [{ name: 'current_time', arguments: {} }],
        })),
        { text: 'All passes done.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "forked-long-${process.pid}"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\n[stages.main]\navailable_tools = ["current_time"]\nmax_iterations = 100\n`,
    );
    const run = await runAgent(env.rt, bp, {
      task: 'Keep working.',
      options: { runHistoryEvents: 40, progressReportMs: 0 },
    });
    expect(run.result.status).toBe('completed');
    const runId = run.handle.workflowId;
    let runs = 0;
    for await (const _ of env.rt.client.workflow.list({ query: `WorkflowId = '${runId}'` })) runs++;
    expect(runs).toBeGreaterThanOrEqual(2);
    const original = served(runId);
    expect(original).toHaveLength(turns + 1);

    const { result, calls } = await fork(runId, { turn: 12 });
    expect(calls[0]).toMatchObject({ turn: 12, prompt: original[12]?.prompt });
    expect(result).toMatchObject({ status: 'completed', output: 'All passes done.' });
  });

  it("forks a fan-out worker, whose turns are in its own run's history", async () => {
    const item = { id: 'billing.ts', context: 'review billing' };
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: [item] } }] },
        { stage: 'work', text: 'Reading.', tool_calls: [append('billing retries')] },
        { stage: 'work', text: 'Reading more.', tool_calls: [append('no backoff')] },
        { stage: 'work', text: 'billing.ts: the retry loop never backs off.' },
        { stage: 'merge', text: 'Reviewed.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "forked-fan-${process.pid}"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 2000, seed = "task_input" }\nnotes = { kind = "temporary", max_tokens = 2000 }\nresults = { kind = "temporary", max_tokens = 20000 }\n[stages.split]\nmode = "fan_out"\nworker_stage = "work"\nresults_region = "results"\nmerge_stage = "merge"\n[stages.work]\nallow_as_worker = true\navailable_tools = ["context_append"]\n[stages.merge]\n`,
    );
    const run = await runAgent(env.rt, bp, { task: 'Review billing.' });
    expect(run.result.status).toBe('completed');
    const worker = `${run.handle.workflowId}/${idSegment(item.id)}`;
    const original = served(worker);
    expect(original.map((c) => c.turn)).toEqual([0, 1, 2]);

    const { result, calls } = await fork(worker, { turn: 1 });
    expect(calls[0]).toMatchObject({ stage: 'work', turn: 1, prompt: original[1]?.prompt });
    expect(result).toMatchObject({ status: 'completed', output: 'billing.ts: the retry loop never backs off.' });
  });
});

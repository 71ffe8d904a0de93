/**
 * Completion checks, edge choice and transforms through whole runs on the
 * real dev server (docs/reference/stages.md). Each scenario is a small blueprint driven
 * by a scripted model; what the model saw on a given turn is rebuilt from
 * the inference activity's recorded input, exactly as the activity did.
 * What each check blocks on, its nudge and what forcing it records are the
 * engine's, checked without a server in test/cli/simulate-gates.test.ts; the
 * checks here are those whose facts come from a visit (a tool that ran, a
 * call denied) or whose outcome reaches the run (its memo, its next stage).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { Content, PromptMessage, RunState } from '../../src/context/index.js';
import { renderPrompt } from '../../src/context/render.js';
import { scriptedCalls } from '../../src/providers/index.js';
import type { InferInput } from '../../src/runtime/node/inference.js';
import { RunStore } from '../../src/runtime/node/run-store.js';
import { customRegionHooks } from '../../src/runtime/region-hooks.js';
import type { StageOutcome } from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { runAgent, scriptedModel, type TestRuntime, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

interface Seen {
  stage: string;
  stageTurn: number;
  purpose: string;
  question?: string;
  system: string;
  /** The tail after the conversation (docs/reference/rendering.md#tail): the regions rewritten on every change. */
  tail: string;
  /** The messages before the tail. */
  messages: PromptMessage[];
  state: RunState;
}

type Payloads = { payloads?: Parameters<typeof defaultPayloadConverter.fromPayload>[0][] | null } | null | undefined;

function first<T>(p: Payloads): T {
  const payload = p?.payloads?.[0];
  if (!payload) throw new Error('event without a payload');
  return defaultPayloadConverter.fromPayload<T>(payload);
}

async function childIds(client: Client, runId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const id = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    return id ? [id] : [];
  });
}

/** Every prompt the run's model was asked, in order, rebuilt from the inference inputs in history. */
async function promptsSeen(rt: TestRuntime, bp: Blueprint, runId: string): Promise<Seen[]> {
  const store = new RunStore({ blobDir: rt.blobDir, env: process.env });
  const inputs: InferInput[] = [];
  const collect = async (workflowId: string) => {
    const history = await rt.client.workflow.getHandle(workflowId).fetchHistory();
    for (const e of history.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name === 'infer') inputs.push(first<InferInput>(a.input));
    }
  };
  for (const id of await childIds(rt.client, runId)) await collect(id);
  await collect(runId);
  inputs.sort((a, b) => a.turn - b.turn || (a.purpose === 'turn' ? -1 : 1));
  const text = async (parts: Content[]) =>
    (await Promise.all(parts.map((p) => (typeof p === 'string' ? p : store.blobs.get(p.hash))))).join('');
  const seen: Seen[] = [];
  for (const input of inputs) {
    const state = await store.state(`${input.runId}-${seen.length}`, bp, input.base, input.ops);
    const rendered = renderPrompt(state, bp, { now: 0, hooks: customRegionHooks(bp) }, { iteration: input.stageTurn });
    const system = (await Promise.all(rendered.system.map((b) => text(b.text)))).join('\n');
    const last = rendered.messages.at(-1);
    const tail = last?.role === 'user' && last.tail ? last : undefined;
    seen.push({
      stage: input.stage,
      stageTurn: input.stageTurn,
      purpose: input.purpose,
      ...(input.question ? { question: input.question } : {}),
      system,
      tail: tail ? (tail.parts ? await text(tail.parts) : tail.content) : '',
      messages: tail ? rendered.messages.slice(0, -1) : rendered.messages,
      state,
    });
  }
  return seen;
}

/** The region set the last stage visit handed back to the run. */
async function finalState(client: Client, runId: string): Promise<RunState> {
  const history = await client.workflow.getHandle(runId).fetchHistory();
  const done = (history.events ?? []).filter((e) => e.childWorkflowExecutionCompletedEventAttributes);
  const last = done.at(-1)?.childWorkflowExecutionCompletedEventAttributes;
  if (!last) throw new Error('no stage visit completed');
  return first<StageOutcome>(last.result).carried.state;
}

function entriesText(state: RunState, region: string): string[] {
  const r = state.regions.find((x) => x.name === region);
  return (r?.entries ?? []).map((e) => (typeof e.content === 'string' ? e.content : e.content.preview));
}

function bar(result: { regions: { name: string; tokens: number; entries: number }[] }, name: string) {
  const r = result.regions.find((x) => x.name === name);
  if (!r) throw new Error(`no region ${name} in result`);
  return r;
}

const turn = (stage: string, text: string, calls: { name: string; arguments: Record<string, unknown> }[] = []) => ({
  stage,
  text,
  ...(calls.length ? { tool_calls: calls } : {}),
});

function blueprint(model: string, body: string): Blueprint {
  return writeBlueprint(`
[agent]
name = "gates"
model = "${model}"
entry_stage = "work"

[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
todos = { kind = "checklist", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 1000 }
patch = { kind = "temporary", max_tokens = 1000 }
${body}

[stages.review]
`);
}

describe('completion gates on a real run', () => {
  const env = useRuntime();

  /** Runs `work` → `review` with `gate`; the first "done" is blocked, `fix` is the model's repair. */
  async function blockedThenFixed(gate: string, fix: ReturnType<typeof turn>, opts: { tools?: string } = {}) {
    const model = scriptedModel({
      turns: [turn('work', 'I think I am done.'), fix, turn('work', 'Now it is done.'), turn('review', 'Looks good.')],
    });
    const bp = writeBlueprint(`
[agent]
name = "gates"
model = "${model}"
entry_stage = "work"

[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
todos = { kind = "checklist", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 1000 }
patch = { kind = "temporary", max_tokens = 1000 }

[stages.work]
${opts.tools ?? ''}
[stages.work.transitions.review]
gate = ${gate}

[stages.review]
`);
    const workdir = tempDir('gate-work');
    const run = await runAgent(env.rt, bp, { task: 'make the change', workdir });
    return { ...run, bp, workdir };
  }

  async function expectBlockedOnce(run: Awaited<ReturnType<typeof blockedThenFixed>>, nudgeParts: string[]) {
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'review']);
    expect(run.result.gatesForced).toEqual([]);
    // The same visit continued: three work inferences, no second entry into `work`.
    expect(run.result.usage.perStage.work?.calls).toBe(3);
    const state = await finalState(env.conn.client, run.handle.workflowId);
    const nudge = state.regions
      .find((r) => r.name === 'conversation')
      ?.entries.find((e) => e.runtime && e.kind === 'user');
    expect(nudge).toBeDefined();
    const nudgeText = typeof nudge!.content === 'string' ? nudge!.content : nudge!.content.preview;
    for (const part of nudgeParts) expect(nudgeText).toContain(part);
    const seen = await promptsSeen(env.rt, run.bp, run.handle.workflowId);
    const afterBlock = seen.find((s) => s.stage === 'work' && s.stageTurn === 1);
    expect(afterBlock?.messages.at(-1)).toMatchObject({ role: 'user', content: nudgeText });
    const beforeBlock = seen.find((s) => s.stage === 'work' && s.stageTurn === 0);
    expect(beforeBlock?.messages.some((m) => m.content === nudgeText)).toBe(false);
  }

  /** Adds a todo, tries to finish with it open, closes it after the nudge, finishes, then reviews. */
  const changelogTurns = () => [
    turn('work', 'Planning.', [{ name: 'todo_add', arguments: { region: 'todos', item: 'update the changelog' } }]),
    turn('work', 'I think I am done.'),
    turn('work', 'Closing the todo.', [{ name: 'todo_done', arguments: { region: 'todos', id: 1 } }]),
    turn('work', 'Now it is done.'),
    turn('review', 'Looks good.'),
  ];

  it('require_no_open_items blocks while a todo is open, names it, and passes once it is closed', async () => {
    const model = scriptedModel({ turns: changelogTurns() });
    const bp = blueprint(
      model,
      `
[stages.work]
[stages.work.transitions.review]
gate = { require_no_open_items = "todos" }`,
    );
    const run = await runAgent(env.rt, bp, { task: 'ship it' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'review']);
    expect(run.result.gatesForced).toEqual([]);
    expect(run.result.usage.perStage.work?.calls).toBe(4);
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    const nudged = seen.find((s) => s.stage === 'work' && s.stageTurn === 2);
    const last = nudged?.messages.at(-1);
    expect(last?.role).toBe('user');
    expect(last?.content).toContain('#1 update the changelog');
    expect(last?.content).toContain('todo_done');
    expect(seen.find((s) => s.stage === 'review')?.tail).toContain('[x] #1 update the changelog');
  });

  it('keeps the gate story when every stage run continues as new and the region set is snapshotted often', async () => {
    const model = scriptedModel({ turns: changelogTurns() });
    const bp = blueprint(
      model,
      `
[stages.work]
[stages.work.transitions.review]
gate = { require_no_open_items = "todos", max_attempts = 1 }`,
    );
    const run = await runAgent(env.rt, bp, { task: 'ship it', options: { turnsPerRun: 1, opsPerSnapshot: 2 } });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'review']);
    expect(run.result.gatesForced).toEqual([]);
    expect(run.result.usage.perStage.work?.calls).toBe(4);
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(entriesText(state, 'conversation').filter((t) => t.includes('#1 update the changelog'))).toHaveLength(1);
    expect(state.regions.find((r) => r.name === 'todos')?.entries[0]?.checklist?.done).toBe(true);
  });

  it('require_modifications with `tools` counts a successful call of a listed tool', async () => {
    const run = await blockedThenFixed(
      '{ require_modifications = true, tools = ["shell"] }',
      turn('work', 'Applying the fix.', [{ name: 'shell', arguments: { command: 'echo fixed > fix.txt' } }]),
      { tools: 'available_tools = ["shell", "write_file", "context_write"]' },
    );
    await expectBlockedOnce(run, ['shell', 'write_file']);
    expect(readFileSync(join(run.workdir, 'fix.txt'), 'utf8')).toBe('fixed\n');
  });

  it('forces the edge at max_attempts, recording it in the result and in the memo', async () => {
    const model = scriptedModel({
      turns: [
        turn('work', 'Planning.', [{ name: 'todo_add', arguments: { region: 'todos', item: 'write the tests' } }]),
        turn('review', 'Reviewed.'),
      ],
    });
    const bp = blueprint(
      model,
      `
[stages.work]
[stages.work.transitions.review]
gate = { require_no_open_items = "todos", max_attempts = 2 }`,
    );
    const run = await runAgent(env.rt, bp, { task: 'ship it' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'review']);
    // One planning turn, then three completions: blocked, blocked, forced.
    expect(run.result.usage.perStage.work?.calls).toBe(4);
    expect(run.result.gatesForced).toHaveLength(1);
    expect(run.result.gatesForced[0]).toMatchObject({
      stage: 'work',
      target: 'review',
      check: 'require_no_open_items',
    });
    expect(run.result.gatesForced[0]?.detail).toContain('#1 write the tests');
    const memo = (await run.handle.describe()).memo as { gatesForced?: unknown };
    expect(memo.gatesForced).toEqual(run.result.gatesForced);
    expect(run.result.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'gate-forced', severity: 'warning' }),
    );
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(entriesText(state, 'conversation').filter((t) => t.includes('#1 write the tests'))).toHaveLength(2);
  });
});

describe('edges on a real run', () => {
  const env = useRuntime();

  it('lets the model choose between two llm_choice edges, shown with their hints', async () => {
    const model = scriptedModel({
      choices: { triage: 'docs' },
      turns: [
        turn('triage', 'It is a documentation problem.'),
        turn('docs', 'Docs updated.'),
        turn('fix', 'Code fixed.'),
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "choice"
model = "${model}"
entry_stage = "triage"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.triage.transitions.fix]
condition = "llm_choice"
hint = "the code is wrong"
[stages.triage.transitions.docs]
condition = "llm_choice"
hint = "the documentation is wrong"
[stages.fix]
[stages.docs]
`);
    const run = await runAgent(env.rt, bp, { task: 'the README contradicts the CLI' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['triage', 'docs']);
    expect(run.result.output).toBe('Docs updated.');
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    const choice = seen.find((s) => s.purpose === 'edge-choice');
    expect(choice?.stage).toBe('triage');
    expect(choice?.question).toContain('fix: the code is wrong');
    expect(choice?.question).toContain('docs: the documentation is wrong');
    expect(choice?.question).not.toContain('DONE');
    // The choice is an inference of the triage stage: the per-stage usage adds up to the run's.
    const perStage = Object.values(run.result.usage.perStage);
    expect(run.result.usage.calls).toBe(3);
    expect(perStage.reduce((a, u) => a + u.calls, 0)).toBe(run.result.usage.calls);
    expect(perStage.reduce((a, u) => a + u.promptTokens, 0)).toBe(run.result.usage.promptTokens);
    expect(run.result.usage.perStage.triage?.calls).toBe(2);
  });

  it('takes the dead_end edge once the only normal edge has used up its target revisits', async () => {
    const model = scriptedModel({
      turns: [turn('draft', 'Drafted.'), turn('check', 'Checked.'), turn('giveup', 'Stopping here.')],
    });
    const bp = writeBlueprint(`
[agent]
name = "revisits"
model = "${model}"
entry_stage = "draft"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.draft]
max_revisits = 1
[stages.draft.transitions.check]
[stages.check.transitions.draft]
[stages.check.transitions.giveup]
condition = "dead_end"
[stages.giveup]
`);
    const run = await runAgent(env.rt, bp, { task: 'draft a plan' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['draft', 'check', 'draft', 'check', 'giveup']);
    expect(run.result.output).toBe('Stopping here.');
  });

  it('ends the run when the model answers DONE on an allow_complete stage', async () => {
    const model = scriptedModel({
      choices: { work: 'DONE' },
      turns: [turn('work', 'All finished.'), turn('polish', 'Polished.')],
    });
    const bp = writeBlueprint(`
[agent]
name = "done"
model = "${model}"
entry_stage = "work"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.work]
allow_complete = true
[stages.work.transitions.polish]
hint = "the result needs polishing"
[stages.polish]
`);
    const run = await runAgent(env.rt, bp, { task: 'finish' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work']);
    expect(run.result.output).toBe('All finished.');
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    expect(seen.find((s) => s.purpose === 'edge-choice')?.question).toMatch(
      /polish: the result needs polishing[\s\S]*DONE/,
    );
  });

  it('takes the error edge when inference fails with a non-retryable error, and the next stage sees why', async () => {
    const model = scriptedModel({
      turns: [
        { stage: 'work', text: 'never served', fail: { kind: 'auth' } },
        turn('recover', 'Recovered after the failure.'),
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "errors"
model = "${model}"
entry_stage = "work"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.work.transitions.done]
[stages.work.transitions.recover]
condition = "error"
[stages.done]
[stages.recover]
`);
    const run = await runAgent(env.rt, bp, { task: 'try it' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'recover']);
    expect(run.result.output).toBe('Recovered after the failure.');
    // The failing call was not retried: auth errors are final.
    expect(scriptedCalls().filter((c) => c.runId === run.handle.workflowId && c.stage === 'work')).toHaveLength(0);
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    const recover = seen.find((s) => s.stage === 'recover');
    expect(
      recover?.messages.some((m) => m.role === 'user' && m.content.includes('Inference failed in stage "work"')),
    ).toBe(true);
  });

  it('at the end of the run, a required region left empty is nudged three times, then forced and recorded', async () => {
    const model = scriptedModel({ turns: [turn('main', 'Finished, I believe.')] });
    const bp = writeBlueprint(`
[agent]
name = "required"
model = "${model}"
[context.regions]
task   = { kind = "pinned", max_tokens = 500 }
report = { kind = "temporary", max_tokens = 500, required = true, required_message = "Put the final report in {region}." }
[stages.main]
`);
    const run = await runAgent(env.rt, bp, { task: 'report back' });
    expect(run.result.status).toBe('completed');
    expect(run.result.usage.perStage.main?.calls).toBe(4);
    expect(run.result.gatesForced).toEqual([
      { stage: 'main', target: null, check: 'required_regions', detail: 'Put the final report in report.' },
    ]);
    expect((await run.handle.describe()).memo?.requiredRegionsAbandoned).toEqual(['report']);
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(entriesText(state, 'conversation').filter((t) => t === 'Put the final report in report.')).toHaveLength(3);
  });

  it('takes the max_iterations edge at the cap without running the normal edge gate', async () => {
    const busy = (i: number) =>
      turn('work', `Still busy ${i}.`, [
        { name: 'context_append', arguments: { region: 'scratch', content: `step ${i}` } },
      ]);
    const model = scriptedModel({ turns: [busy(1), busy(2), busy(3), turn('wrapup', 'Wrapped up.')] });
    const bp = writeBlueprint(`
[agent]
name = "capped"
model = "${model}"
entry_stage = "work"
[context.regions]
task    = { kind = "pinned", max_tokens = 500 }
scratch = { kind = "temporary", max_tokens = 1000 }
notes   = { kind = "temporary", max_tokens = 1000 }
[stages.work]
max_iterations = 2
[stages.work.transitions.review]
gate = { require_regions = ["notes"] }
[stages.work.transitions.wrapup]
condition = "max_iterations"
[stages.review]
[stages.wrapup]
`);
    const run = await runAgent(env.rt, bp, { task: 'keep going' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'wrapup']);
    expect(run.result.usage.perStage.work?.calls).toBe(2);
    expect(run.result.gatesForced).toEqual([]);
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    const wrapup = seen.find((s) => s.stage === 'wrapup');
    expect(
      wrapup?.messages.some((m) => m.role === 'user' && m.content.includes('reached its limit of 2 inferences')),
    ).toBe(true);
    expect(wrapup?.messages.some((m) => m.content.includes('still empty'))).toBe(false);
  });

  it('leaves at the iteration cap by the normal edge without running its gate', async () => {
    const model = scriptedModel({
      turns: [
        turn('work', 'Busy.', [{ name: 'context_append', arguments: { region: 'scratch', content: 'step' } }]),
        turn('review', 'Reviewed.'),
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "capnormal"
model = "${model}"
entry_stage = "work"
[context.regions]
task    = { kind = "pinned", max_tokens = 500 }
scratch = { kind = "temporary", max_tokens = 1000 }
notes   = { kind = "temporary", max_tokens = 1000 }
[stages.work]
max_iterations = 1
[stages.work.transitions.review]
gate = { require_regions = ["notes"] }
[stages.review]
`);
    const run = await runAgent(env.rt, bp, { task: 'keep going' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'review']);
    expect(run.result.gatesForced).toEqual([]);
    // One visit of work: no nudges the model could never answer, no re-runs of a stage already at its cap.
    expect(await childIds(env.conn.client, run.handle.workflowId)).toHaveLength(2);
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    const review = seen.find((s) => s.stage === 'review');
    expect(review?.messages.some((m) => m.content.includes('still empty'))).toBe(false);
  });

  it('takes the stuck edge after idle inferences and files the report in stuck_report', async () => {
    const idle = (i: number) => turn('work', `Looking around ${i}.`, [{ name: 'context_list', arguments: {} }]);
    const model = scriptedModel({ turns: [idle(1), idle(2), idle(3), idle(4), turn('help', 'Asking for help.')] });
    const bp = writeBlueprint(`
[agent]
name = "stuck"
model = "${model}"
entry_stage = "work"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
stuck_report = { kind = "temporary", max_tokens = 500 }
[stages.work.transitions.done]
[stages.work.transitions.help]
condition = "stuck"
stuck_after_iterations = 2
[stages.done]
[stages.help]
`);
    const run = await runAgent(env.rt, bp, { task: 'find something' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'help']);
    expect(run.result.usage.perStage.work?.calls).toBe(2);
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(entriesText(state, 'stuck_report')).toEqual([expect.stringContaining('Stage "work" made no progress')]);
  });

  it('takes the stuck edge when one file keeps being rewritten, however its path is spelled', async () => {
    const write = (path: string, i: number) =>
      turn('work', `Rewriting ${i}.`, [{ name: 'write_file', arguments: { path, content: `version ${i}\n` } }]);
    const model = scriptedModel({
      turns: [
        write('notes.txt', 1),
        write('./notes.txt', 2),
        write('sub/../notes.txt', 3),
        write('notes.txt', 4),
        turn('help', 'Asking for help.'),
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "churn"
model = "${model}"
entry_stage = "work"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.work.transitions.done]
[stages.work.transitions.help]
condition = "stuck"
stuck_after_same_file_edits = 3
[stages.done]
[stages.help]
`);
    const workdir = tempDir('churn');
    const run = await runAgent(env.rt, bp, { task: 'settle the notes', workdir });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'help']);
    expect(run.result.usage.perStage.work?.calls).toBe(3);
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('version 3\n');
  });

  it('`compact` folds the scratch region into one summary before the next stage first sees it', async () => {
    const note = (i: number) => ({
      name: 'context_append',
      arguments: { region: 'scratch', content: `observation ${i}: ${'detail '.repeat(10)}` },
    });
    const model = scriptedModel({
      turns: [
        turn('gather', 'Gathering.', [note(1), note(2), note(3)]),
        turn('gather', 'Gathered.'),
        turn('write', 'Written.'),
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "compacting"
model = "${model}"
entry_stage = "gather"
[context.regions]
task    = { kind = "pinned", max_tokens = 500 }
scratch = { kind = "temporary", max_tokens = 2000 }
[stages.gather.transitions.write]
transform = "compact"
[stages.write]
`);
    const run = await runAgent(env.rt, bp, { task: 'write it up' });
    expect(run.result.status).toBe('completed');
    expect(bar(run.result, 'scratch').entries).toBe(1);
    const state = await finalState(env.conn.client, run.handle.workflowId);
    const scratch = state.regions.find((r) => r.name === 'scratch')?.entries ?? [];
    expect(scratch).toHaveLength(1);
    expect(scratch[0]?.summary).toBe(true);
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    const write = seen.find((s) => s.stage === 'write' && s.purpose === 'turn');
    expect(write?.tail).toContain('summary of 3');
    expect(`${write?.system}\n${write?.tail}`).not.toContain('observation 2: detail');
  });

  it('require_modifications passes when the modifying call was denied by policy', async () => {
    const model = scriptedModel({
      turns: [
        turn('work', 'Trying to write.', [{ name: 'write_file', arguments: { path: 'out.txt', content: 'x' } }]),
        turn('work', 'I was not allowed to; stopping.'),
        turn('review', 'Reviewed.'),
      ],
    });
    const bp = blueprint(
      model,
      `
[tool_permissions]
write_file = "deny"
[stages.work]
[stages.work.transitions.review]
gate = { require_modifications = true }`,
    );
    const run = await runAgent(env.rt, bp, { task: 'change a file' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['work', 'review']);
    expect(run.result.usage.perStage.work?.calls).toBe(2);
    expect(run.result.gatesForced).toEqual([]);
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(entriesText(state, 'conversation').some((t) => t.includes('No file has been changed'))).toBe(false);
  });

  it('takes the first edge and notes it when the model names no edge', async () => {
    const model = scriptedModel({
      choices: { triage: 'not sure, maybe both of them' },
      turns: [turn('triage', 'Hmm.'), turn('fix', 'Fixed.'), turn('docs', 'Documented.')],
    });
    const bp = writeBlueprint(`
[agent]
name = "unmatched"
model = "${model}"
entry_stage = "triage"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.triage.transitions.fix]
condition = "llm_choice"
[stages.triage.transitions.docs]
condition = "llm_choice"
[stages.fix]
[stages.docs]
`);
    const run = await runAgent(env.rt, bp, { task: 'decide' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['triage', 'fix']);
    expect(run.result.diagnostics.map((d) => d.code)).toContain('edge-choice-unmatched');
  });

  it('returns a long final answer in full although the run keeps only a reference to it', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `Line ${i} of the final answer.`).join('\n');
    const model = scriptedModel({ turns: [turn('main', long)] });
    const bp = writeBlueprint(`
[agent]
name = "longanswer"
model = "${model}"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
conversation = { kind = "sliding_window", max_tokens = 20000 }
[stages.main]
`);
    const run = await runAgent(env.rt, bp, { task: 'answer at length' });
    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe(long);
  });

  it('fails the run at a transition whose stage prompt does not fit, naming stage, region and budget', async () => {
    const model = scriptedModel({ turns: [turn('plan', 'Planned.'), turn('build', 'never asked')] });
    const prompt = 'Follow every rule of the house style, check each file twice, and explain every change. '.repeat(12);
    const bp = writeBlueprint(`
[agent]
name = "bigprompt"
model = "${model}"
entry_stage = "plan"
[context.regions]
task = { kind = "pinned", max_tokens = 120 }
[stages.plan.transitions.build]
[stages.build]
system_prompt = "${prompt}"
`);
    const run = await runAgent(env.rt, bp, { task: 'build it' });
    expect(run.result.status).toBe('failed');
    expect(run.result.stages).toEqual(['plan']);
    expect(run.result.error).toContain('stage "build"');
    expect(run.result.error).toContain('region "task"');
    expect(run.result.error).toContain('120 tokens');
    expect(scriptedCalls().filter((c) => c.runId === run.handle.workflowId && c.stage === 'build')).toHaveLength(0);
  });

  it('`clear` empties scratch regions and the conversation but keeps pinned regions and checklists', async () => {
    const model = scriptedModel({
      turns: [
        turn('gather', 'Gathering.', [
          { name: 'todo_add', arguments: { region: 'todos', item: 'write the summary' } },
          { name: 'context_append', arguments: { region: 'scratch', content: 'raw observations from gathering' } },
        ]),
        turn('gather', 'Gathered.'),
        turn('summarise', 'Next item.', [{ name: 'todo_add', arguments: { region: 'todos', item: 'second item' } }]),
        turn('summarise', 'Summarised.'),
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "clearing"
model = "${model}"
entry_stage = "gather"
[context.regions]
task    = { kind = "pinned", max_tokens = 500 }
todos   = { kind = "checklist", max_tokens = 500 }
scratch = { kind = "temporary", max_tokens = 1000 }
[stages.gather.transitions.summarise]
transform = "clear"
[stages.summarise]
`);
    const run = await runAgent(env.rt, bp, { task: 'summarise the findings' });
    expect(run.result.status).toBe('completed');
    expect(bar(run.result, 'scratch')).toMatchObject({ entries: 0, tokens: 0 });
    expect(bar(run.result, 'task').tokens).toBeGreaterThan(0);
    const seen = await promptsSeen(env.rt, bp, run.handle.workflowId);
    const entering = seen.find((s) => s.stage === 'summarise' && s.stageTurn === 0);
    // Only the runtime's opening prompt is left of the conversation.
    expect(entering?.messages.filter((m) => m.role !== 'user' || /Gather/.test(m.content))).toEqual([]);
    expect(entering?.system).toContain('summarise the findings');
    expect(entering?.tail).toContain('#1 write the summary');
    expect(`${entering?.system}\n${entering?.tail}`).not.toContain('raw observations');
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(entriesText(state, 'conversation').some((t) => t.startsWith('Gather'))).toBe(false);
    expect(entriesText(state, 'todos')).toEqual(['write the summary', 'second item']);
    expect(state.regions.find((r) => r.name === 'todos')?.entries.map((e) => e.checklist?.id)).toEqual([1, 2]);
  });
});

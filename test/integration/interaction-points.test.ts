/**
 * Interaction points and the asking tools against the real dev server
 * (docs/reference/interaction.md): a stage in `interactive_points` mode on
 * the scripted model calls `ask_user_choice`, `ask_user_confirm` and
 * `present_for_review`, then stops at its checkpoint, which is sent back to
 * revise, edited and approved. The answers come from `lev answer` (run in
 * this process, test/cli/lev-in-process.ts) and from `answer` updates sent
 * through the Temporal client as the Web UI sends them; what the model read is read back from the visit's
 * recorded operations. An abort option ends the run cancelled; a point
 * that asks even unattended stops the run when nobody answers. The
 * original's `coder` runs through its plan checkpoint to its end.
 */
import { execFileSync } from 'node:child_process';
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { withModel } from '../../src/blueprint/model-switch.js';
import { registerScript, scriptedCalls } from '../../src/providers/index.js';
import type { RecordedOp } from '../../src/runtime/ops.js';
import { REVISED_NOTE } from '../../src/runtime/people/interaction-points.js';
import { STATUS_KEY } from '../../src/runtime/search-attributes.js';
import { DEFAULT_RUN_OPTIONS, type PendingAsk, type RunOptions } from '../../src/runtime/types.js';
import type { Notice } from '../../src/shapes/webhooks.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { lev as levInProcess } from '../cli/lev-in-process.js';
import { startNoticeReceiver, temporalAddress } from './helpers.js';
import { saveHistories, scriptedModel, tempDir, useRuntime, visitOps, writeBlueprint } from './run-helpers.js';

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 3000; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting until ${what}`);
}

/** `lev …` as a person runs it against this lane's server. */
function lev(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return levInProcess([...args, '--address', temporalAddress()]);
}

/** The first ask the run waits on that `match` accepts. */
async function waitingAsk(client: Client, handle: WorkflowHandle, match: (a: PendingAsk) => boolean, what: string) {
  return until(async () => (await runProgress(client, handle))?.asks.find(match), what);
}

/** The tool results and user turns the visit wrote, in order. */
function written(ops: readonly RecordedOp[]): string[] {
  return ops.flatMap((op) => {
    const c = op.call;
    if (c.kind === 'route' && typeof c.result.content === 'string') return [c.result.content];
    if (
      c.kind === 'write' &&
      c.region === 'conversation' &&
      typeof c.entry.content === 'string' &&
      c.entry.kind === 'user'
    )
      return [c.entry.content];
    return [];
  });
}

const PLAN = '## Plan\n1. Add the cache.\n2. Test it.';
const SHORTER = '## Plan\n1. Add the cache.';
const EDITED = '## Plan\n1. Add the cache.\n2. Test it under load.';

function pointsBlueprint(name: string, model: string, extra = ''): string {
  return `
[agent]
name = "${name}"
model = "${model}"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
plan = { kind = "pinned", max_tokens = 2000 }
[stages.plan]
mode = "interactive_points"
available_tools = ["ask_user_choice", "ask_user_confirm", "present_for_review"]
[[stages.plan.interaction_points]]
name = "plan_approval"
prompt = "Review the plan. What would you like to do?"
style = "multiple_choice"
options = ["Approve - go ahead", "Revise - I'll say what", "Edit - I'll write it", "Abort - cancel the run"]
abort_options = ["Abort - cancel the run"]
edit_options = ["Edit - I'll write it"]
document_region = "plan"
[stages.plan.interaction_points.directives]
"Revise - I'll say what" = "Make the plan shorter."
${extra}
`;
}

async function start(client: Client, taskQueue: string, toml: string, options: Partial<RunOptions> = {}) {
  return startRun(
    client,
    {
      blueprint: writeBlueprint(toml),
      task: 'Plan the cache.',
      caller: {},
      workdir: tempDir('points'),
      options: { ...DEFAULT_RUN_OPTIONS, ...options },
    },
    { taskQueue },
  );
}

async function leviathStatus(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.describe()).typedSearchAttributes.get(STATUS_KEY);
}

describe('interaction points and the asking tools', () => {
  const env = useRuntime();
  const notices: Notice[] = [];
  let server: Awaited<ReturnType<typeof startNoticeReceiver>>;
  let url = '';

  beforeAll(async () => {
    server = await startNoticeReceiver(notices);
    url = server.url;
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers each tool in its form, then revises, edits and approves the checkpoint, from lev and the Web UI', async () => {
    const model = scriptedModel({
      turns: [
        {
          stage: 'plan',
          tool_calls: [
            { name: 'ask_user_choice', arguments: { prompt: 'Which store?', options: ['Postgres', 'SQLite'] } },
            { name: 'ask_user_confirm', arguments: { prompt: 'Drop the old cache?' } },
          ],
        },
        {
          stage: 'plan',
          tool_calls: [{ name: 'present_for_review', arguments: { title: 'Design', markdown: '# Design\nA cache.' } }],
        },
        { stage: 'plan', text: PLAN },
        { stage: 'plan', text: SHORTER },
      ],
    });
    const client = env.rt.client;
    const handle = await start(client, env.rt.taskQueue, pointsBlueprint(`points-${process.pid}`, model), {
      unattended: false,
      notify: [{ url, events: ['waiting'] }],
    });
    const runId = handle.workflowId;

    // The two questions of one reply wait together.
    const choice = await waitingAsk(client, handle, (a) => a.form === 'choice', 'the choice waits');
    expect(choice).toMatchObject({
      call: 'call_0_0',
      tool: 'ask_user_choice',
      subject: 'Which store?',
      options: ['Postgres', 'SQLite'],
    });
    await waitingAsk(client, handle, (a) => a.form === 'confirm', 'the yes/no question waits');
    expect((await runProgress(client, handle))?.waiting).toBe('answer');
    expect(await leviathStatus(handle)).toBe('waiting');
    const show = JSON.parse((await lev(['show', runId, '--json'])).stdout) as {
      waitingFor: { kind: string; detail: string }[];
    };
    expect(show.waitingFor.map((w) => w.detail).join('\n')).toContain(`lev answer ${runId} call_0_0 --choice <1-2>`);

    // A choice that names no option is refused, and the question stays open.
    const wrong = await lev(['answer', runId, 'call_0_0', '--choice', '7']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /^error \[bad-answer\] The question of call call_0_0 takes one of its options, 1\. "Postgres", 2\. "SQLite"/,
    );
    const picked = await lev(['answer', runId, 'call_0_0', '--choice', '2']);
    expect(picked).toMatchObject({ code: 0 });
    expect(picked.stdout).toContain('answered call call_0_0: SQLite');
    // The Web UI sends the update by name with a JSON argument.
    expect(await sendUpdate(client, runId, 'answer', { call: 'call_0_1', yes: false })).toEqual({
      call: 'call_0_1',
      question: 'Drop the old cache?',
      answer: 'No',
    });

    const review = await waitingAsk(client, handle, (a) => a.form === 'review', 'the review waits');
    expect(review).toMatchObject({ subject: 'Design', document: '# Design\nA cache.' });
    expect((await lev(['answer', runId, 'Looks right; add a test.'])).code).toBe(0);

    // The checkpoint: the stage's plain reply is the document, kept in its region.
    const point = await waitingAsk(client, handle, (a) => a.point !== undefined, 'the checkpoint waits');
    expect(point).toMatchObject({
      call: 'point-plan_approval-0',
      tool: 'interaction_point',
      form: 'choice',
      point: 'plan_approval',
      document: PLAN,
    });
    expect((await runProgress(client, handle))?.waiting).toBe('checkpoint');
    expect(await leviathStatus(handle)).toBe('waiting');
    await until(() => notices.find((n) => n.waiting?.kind === 'checkpoint'), 'the waiting notice');
    expect(notices.find((n) => n.waiting?.kind === 'checkpoint')).toMatchObject({
      event: 'waiting',
      runId,
      command: `lev answer ${runId} point-plan_approval-0 --choice <1-4>`,
      waiting: { call: 'point-plan_approval-0', options: point.options },
    });
    // "revise" names the option once case, dashes and spaces are set aside: the stage runs again.
    expect(await sendUpdate(client, runId, 'answer', { choice: "revise i'll-say WHAT" })).toMatchObject({
      answer: "Revise - I'll say what",
    });
    const again = await waitingAsk(client, handle, (a) => a.call === 'point-plan_approval-1', 'the second round');
    expect(again.document).toBe(SHORTER);
    expect((await lev(['answer', runId, '--choice', '3'])).stdout).toContain("Edit - I'll write it");
    const edit = await waitingAsk(client, handle, (a) => a.form === 'edit', 'the edit');
    expect(edit).toMatchObject({ call: 'point-plan_approval-1-edit', document: SHORTER });
    await sendUpdate(client, runId, 'answer', { call: edit.call, text: EDITED });
    // Asked again about the edited document, without another inference.
    const third = await waitingAsk(client, handle, (a) => a.call === 'point-plan_approval-2', 'the third round');
    expect(third.document).toBe(EDITED);
    expect((await lev(['answer', runId, '--choice', 'Approve - go ahead'])).code).toBe(0);

    const result = await followRun(client, handle, () => {});
    expect(result.status).toBe('completed');
    await saveHistories(client, runId);
    expect(scriptedCalls().filter((c) => c.runId === runId && c.purpose === 'turn')).toHaveLength(4);
    // The asking tools are the runtime's own, no MCP grant: the visit asks no server for tools (docs/reference/mcp.md#discovery).
    const visit = await client.workflow.getHandle(`${runId}.1.plan`).fetchHistory();
    const scheduled = (visit.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    expect(scheduled).not.toContain('discoverTools');
    const ops = await visitOps(client, `${runId}.1.plan`);
    const said = written(ops);
    expect(said).toEqual(
      expect.arrayContaining([
        'User chose: SQLite',
        'User answered: No',
        'User feedback: Looks right; add a test.',
        "User [plan_approval] Revise - I'll say what",
        'User [plan_approval] directive: Make the plan shorter.',
        "User [plan_approval] Edit - I'll write it",
        'User [plan_approval] Approve - go ahead',
      ]),
    );
    expect(said.some((t) => t.includes('edited the document directly') && t.includes(EDITED))).toBe(true);
    const keeps = ops.flatMap((op) =>
      op.call.kind === 'contextTool' && op.call.tool === 'context_write'
        ? [(op.call.args as { content: string }).content]
        : [],
    );
    expect(keeps).toEqual([PLAN, SHORTER, `[revised by the user: keep these changes]\n${EDITED}`]);
    const notes = ops.flatMap((op) =>
      op.call.kind === 'write' && op.call.entry.runtime ? [op.call.entry.content] : [],
    );
    expect(notes).toContain(REVISED_NOTE);
    expect(await leviathStatus(handle)).toBe('completed');
  });

  it('ends the run cancelled at an abort option, with no model call after it', async () => {
    const model = scriptedModel({ turns: [{ stage: 'plan', text: PLAN }] });
    const client = env.rt.client;
    const handle = await start(client, env.rt.taskQueue, pointsBlueprint(`abort-${process.pid}`, model), {
      unattended: false,
    });
    await waitingAsk(client, handle, (a) => a.point !== undefined, 'the checkpoint waits');
    await sendUpdate(client, handle.workflowId, 'answer', { choice: 4 });
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((err as WorkflowFailedError).cause?.message).toContain(
      'checkpoint "plan_approval" was answered "Abort - cancel the run"',
    );
    const result = await followRun(client, handle, () => {});
    expect(result.status).toBe('cancelled');
    expect(await leviathStatus(handle)).toBe('cancelled');
    expect((await handle.describe()).memo).toMatchObject({ status: 'cancelled' });
    expect(scriptedCalls().filter((c) => c.runId === handle.workflowId && c.purpose === 'turn')).toHaveLength(1);
    await saveHistories(client, handle.workflowId);
  });

  it('passes an auto_approve point on its own when nobody attends, and stops the run at an unanswered ask point', async () => {
    const client = env.rt.client;
    const model = scriptedModel({ turns: [{ stage: 'plan', text: PLAN }] });
    const alone = await start(client, env.rt.taskQueue, pointsBlueprint(`alone-${process.pid}`, model));
    expect((await followRun(client, alone, () => {})).status).toBe('completed');
    await saveHistories(client, alone.workflowId);
    expect(written(await visitOps(client, `${alone.workflowId}.1.plan`))).not.toContain(
      'User [plan_approval] Approve - go ahead',
    );

    // `unattended = "ask"` asks even so; nobody answers within ask_timeout, and the run stops, its error edge untaken.
    const strict = pointsBlueprint(`strict-${process.pid}`, model)
      .replace('document_region = "plan"', 'document_region = "plan"\nunattended = "ask"')
      .concat('[run]\nask_timeout = "2s"\n[stages.plan.transitions.recover]\ncondition = "error"\n[stages.recover]\n');
    const handle = await start(client, env.rt.taskQueue, strict);
    await waitingAsk(client, handle, (a) => a.point !== undefined, 'the checkpoint waits');
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('checkpoint-unanswered');
    expect(cause?.message).toContain('checkpoint "plan_approval" went unanswered');
    await saveHistories(client, handle.workflowId);
    const visits: string[] = [];
    for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${handle.workflowId}.'` }))
      visits.push(wf.workflowId);
    expect(visits).toEqual([`${handle.workflowId}.1.plan`]);
  });

  it('tells the model nobody attends when a tool asks in a run nobody attends', async () => {
    const client = env.rt.client;
    const model = scriptedModel({
      turns: [
        { stage: 'plan', tool_calls: [{ name: 'ask_user_confirm', arguments: { prompt: 'Go?' } }] },
        { stage: 'plan', text: PLAN },
      ],
    });
    const handle = await start(client, env.rt.taskQueue, pointsBlueprint(`tool-alone-${process.pid}`, model));
    expect((await followRun(client, handle, () => {})).status).toBe('completed');
    await saveHistories(client, handle.workflowId);
    expect(written(await visitOps(client, `${handle.workflowId}.1.plan`)).join('\n')).toContain(
      '[ask-user-unattended]',
    );
  });

  it("runs the original's coder on the scripted model through its plan checkpoint: revise, edit, approve, then on to the end", async () => {
    // `scripted:default` has a window in the model table, so the coder's percentage budgets resolve as they would.
    registerScript('default', {
      choices: { plan: 'implement', implement: 'review', review: 'summary' },
      turns: [
        {
          stage: 'discover',
          tool_calls: [
            { name: 'context_write', arguments: { region: 'discovery', content: 'A folder of notes; no build.' } },
            {
              name: 'context_write',
              arguments: {
                region: 'workflow',
                content: 'TIER 1\nBASELINE: ls\nVERIFY: ls\nDONE WHEN: notes.txt exists',
              },
            },
          ],
        },
        { stage: 'discover', text: 'Mapped.' },
        { stage: 'plan', text: PLAN },
        { stage: 'plan', tool_calls: [{ name: 'ask_user_text', arguments: { prompt: 'What should change?' } }] },
        { stage: 'plan', text: SHORTER },
        {
          stage: 'implement',
          tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'cache\n' } }],
        },
        { stage: 'implement', text: 'Implemented.' },
        { stage: 'review', text: 'APPROVED - no significant issues' },
        { stage: 'summary', tool_calls: [{ name: 'submit_output', arguments: { content: 'Added notes.txt.' } }] },
      ],
    });
    const dir = 'test/fixtures/leviath-rs/agents/coder';
    const loaded = loadBlueprint(dir, { workdir: dir });
    expect(loaded.diagnostics.filter((d) => d.code === 'unsupported-feature')).toEqual([]);
    const bp = withModel(loaded.blueprint!, 'scripted:default');
    bp.compaction = { ...bp.compaction, model: 'scripted:default' };
    const client = env.rt.client;
    // The coder seeds `repo_files` with `git ls-files`, which fails the run outside a repository here.
    const workdir = tempDir('coder');
    execFileSync('git', ['init', '-q', workdir]);
    const handle = await startRun(
      client,
      {
        blueprint: bp,
        task: 'Keep notes on the cache in notes.txt.',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, unattended: false },
      },
      { taskQueue: env.rt.taskQueue },
    );
    const runId = handle.workflowId;
    const first = await waitingAsk(client, handle, (a) => a.point === 'plan_approval', 'the plan checkpoint');
    expect(first).toMatchObject({ document: PLAN, options: expect.arrayContaining(['Abort - cancel this run']) });
    await sendUpdate(client, runId, 'answer', { choice: 2 });
    // The directive has the model ask what to change.
    await waitingAsk(client, handle, (a) => a.tool === 'ask_user', 'the question of the directive');
    await sendUpdate(client, runId, 'answer', 'Keep it to one step.');
    await waitingAsk(client, handle, (a) => a.call === 'point-plan_approval-1', 'the revised plan');
    await sendUpdate(client, runId, 'answer', { choice: 'Add detail - expand a section' });
    await waitingAsk(client, handle, (a) => a.form === 'edit', 'the edit');
    await sendUpdate(client, runId, 'answer', { text: EDITED });
    await waitingAsk(client, handle, (a) => a.call === 'point-plan_approval-2', 'the edited plan');
    await sendUpdate(client, runId, 'answer', { choice: 1 });
    // implement's write_file is an `ask` permission of the coder.
    await waitingAsk(client, handle, (a) => a.kind === 'approval', 'the write');
    await sendUpdate(client, runId, 'approve', {});
    const result = await followRun(client, handle, () => {});
    await saveHistories(client, runId);
    expect(result.status).toBe('completed');
    expect(result.stages).toEqual(['discover', 'plan', 'implement', 'review', 'summary']);
    expect(result.output).toBe('Added notes.txt.');
    const said = written(await visitOps(client, `${runId}.2.plan`));
    expect(said).toEqual(
      expect.arrayContaining([
        "User [plan_approval] Revise - I'll describe changes",
        'Keep it to one step.',
        'User [plan_approval] Add detail - expand a section',
        'User [plan_approval] Approve - proceed to implementation',
      ]),
    );
  });
});

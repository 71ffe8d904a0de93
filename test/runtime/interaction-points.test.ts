/**
 * The rules of interaction points (docs/reference/interaction.md#interaction-points,
 * docs/reference/interaction.md#what-each-answer-does): which point asks,
 * whether it asks a person, the question it puts, what each answer does,
 * the bound on revising, the document, how the stage and the run end, and
 * the order of a visit's reports that keeps a late one from undoing a newer one.
 */
import { describe, expect, it } from 'vitest';
import { type ReportOrder, reportIsStale } from '../../src/runtime/live-progress.js';
import {
  afterPointEdit,
  asksInForms,
  currentPoint,
  documentText,
  MAX_REVISION_ROUNDS,
  nextCheckpoint,
  pointAsk,
  pointAsksPerson,
  pointEditAsk,
  REVISED_NOTE,
  routePointAnswer,
} from '../../src/runtime/people/interaction-points.js';
import { afterPlainReply } from '../../src/runtime/stage-modes.js';
import { departure } from '../../src/runtime/visit.js';
import type { InteractionPoint, StageDef } from '../../src/shapes/frozen-blueprint.js';
import { loadToml } from '../blueprint/helpers.js';

const plan: InteractionPoint = {
  name: 'plan_approval',
  prompt: 'Approve the plan?',
  required: true,
  unattended: 'auto_approve',
  style: 'multiple_choice',
  options: ['Approve', 'Revise', 'Edit', 'Abort'],
  directives: { Revise: 'Ask what to change, then plan again.' },
  abortOptions: ['Abort'],
  editOptions: ['Edit'],
  documentRegion: 'plan',
};
const yesNo: InteractionPoint = {
  ...plan,
  name: 'go',
  style: 'confirm',
  options: [],
  directives: {},
  abortOptions: [],
  editOptions: [],
};
const def: StageDef = {
  name: 'plan',
  model: 'scripted:x',
  mode: 'interactive_points',
  allowComplete: false,
  transitions: [],
  interactionPoints: [plan, yesNo],
};
const at = { since: 0, deadline: 1000 };
const facts = { outputReminders: 0 };

describe('which point asks', () => {
  it('starts at the first point, goes on from where the checkpoints stand, and ends after the last', () => {
    expect(currentPoint(def, undefined)).toEqual({ point: plan, index: 0, round: 0 });
    expect(currentPoint(def, { point: 1, round: 2 })).toEqual({ point: yesNo, index: 1, round: 2 });
    expect(currentPoint(def, { point: 2, round: 0 })).toBeUndefined();
    expect(nextCheckpoint(def, 0, 3, { kind: 'pass', say: [] })).toEqual({ point: 1, round: 0 });
    expect(nextCheckpoint(def, 1, 0, { kind: 'pass', say: [] })).toBeUndefined();
    expect(nextCheckpoint(def, 0, 1, { kind: 'revise', say: [] })).toEqual({ point: 0, round: 2 });
    expect(nextCheckpoint(def, 0, 1, { kind: 'edit', say: [] })).toEqual({ point: 0, round: 2 });
  });

  it('asks after a reply without tool calls of a stage that has points, and records the patch only for such stages', () => {
    expect(afterPlainReply(def, facts)).toEqual({ kind: 'checkpoint' });
    expect(afterPlainReply({ ...def, interactionPoints: [] }, facts)).toEqual({ kind: 'end' });
    expect(asksInForms(def)).toBe(true);
    expect(asksInForms({ ...def, mode: 'autonomous', availableTools: ['ask_user', 'read_file'] })).toBe(false);
    expect(asksInForms({ ...def, mode: 'autonomous', availableTools: ['ask_user_confirm'] })).toBe(true);
  });

  it('asks a person unless it is auto_approve in a run nobody attends', () => {
    expect(pointAsksPerson(plan, false)).toBe(true);
    expect(pointAsksPerson(plan, true)).toBe(false);
    expect(pointAsksPerson({ ...plan, unattended: 'ask' }, true)).toBe(true);
  });
});

describe('the question a point puts', () => {
  it('is in its style, on its document, under a call id naming the point and the round', () => {
    expect(pointAsk(plan, 1, at, '## Plan')).toEqual({
      kind: 'answer',
      call: 'point-plan_approval-1',
      tool: 'interaction_point',
      subject: 'Approve the plan?',
      ...at,
      form: 'choice',
      options: ['Approve', 'Revise', 'Edit', 'Abort'],
      document: '## Plan',
      point: 'plan_approval',
    });
    expect(pointAsk(yesNo, 0, at, '')).toMatchObject({ form: 'confirm', point: 'go' });
    expect(pointAsk(yesNo, 0, at, '')).not.toHaveProperty('document');
    const free = pointAsk({ ...plan, style: 'free_text', required: false, prompt: ' ' }, 0, at, 'x');
    expect(free).toMatchObject({ form: 'text', optional: true, subject: 'Checkpoint plan_approval' });
    expect(pointEditAsk(plan, 2, at, '## Plan')).toMatchObject({
      call: 'point-plan_approval-2-edit',
      form: 'edit',
      document: '## Plan',
    });
  });
});

describe('what each answer does', () => {
  it('passes on an option in no list, and writes the answer', () => {
    expect(routePointAnswer(plan, 0, 'Approve')).toEqual({ kind: 'pass', say: ['User [plan_approval] Approve'] });
    // Past the first round, the model is told the document changed before it was approved.
    expect(routePointAnswer(plan, 2, 'Approve')).toEqual({
      kind: 'pass',
      say: ['User [plan_approval] Approve'],
      note: REVISED_NOTE,
    });
  });

  it('revises on a directive, edits on an edit option, aborts on an abort option, matched folded', () => {
    expect(routePointAnswer(plan, 0, 'revise')).toEqual({
      kind: 'revise',
      say: ['User [plan_approval] revise', 'User [plan_approval] directive: Ask what to change, then plan again.'],
    });
    expect(routePointAnswer(plan, 0, 'Edit')).toEqual({ kind: 'edit', say: ['User [plan_approval] Edit'] });
    expect(routePointAnswer(plan, 0, 'ABORT')).toEqual({
      kind: 'abort',
      detail: 'checkpoint "plan_approval" was answered "ABORT", one of its abort_options',
    });
  });

  it('passes instead of revising or editing once the point has sent the stage back MAX_REVISION_ROUNDS times', () => {
    const last = MAX_REVISION_ROUNDS - 1;
    expect(routePointAnswer(plan, last, 'Revise')).toEqual({ kind: 'pass', say: ['User [plan_approval] Revise'] });
    expect(routePointAnswer(plan, last, 'Edit').kind).toBe('pass');
    expect(routePointAnswer(plan, last - 1, 'Edit').kind).toBe('edit');
  });

  it("takes a confirm point's No as an abort unless a list names it", () => {
    expect(routePointAnswer(yesNo, 0, 'Yes')).toEqual({ kind: 'pass', say: ['User [go] Yes'] });
    expect(routePointAnswer(yesNo, 0, 'No')).toEqual({ kind: 'abort', detail: 'checkpoint "go" was answered "No"' });
    expect(routePointAnswer({ ...yesNo, directives: { No: 'Try again.' } }, 0, 'No').kind).toBe('revise');
  });

  it('passes with no answer when it passes on its own or nobody answered, unless it asks even unattended', () => {
    expect(routePointAnswer(plan, 0, '')).toEqual({ kind: 'pass', say: [] });
    expect(routePointAnswer(plan, 0, undefined)).toEqual({ kind: 'pass', say: [] });
    expect(routePointAnswer({ ...plan, unattended: 'ask' }, 0, undefined)).toEqual({
      kind: 'unanswered',
      detail:
        'checkpoint "plan_approval" went unanswered within the ask timeout; the run stopped rather than pass it unread',
    });
  });

  it('adopts an edited document, marked as the person revised it, and keeps the document on an empty edit', () => {
    expect(afterPointEdit(plan, 'v2')).toEqual({
      say: [
        'User [plan_approval] edited the document directly. Adopt this exact text as the authoritative version and present it again:\nv2',
      ],
      document: 'v2',
    });
    expect(afterPointEdit(plan, '')).toEqual({ say: [] });
    expect(afterPointEdit(plan, undefined)).toEqual({ say: [] });
    expect(documentText('v2', true)).toBe('[revised by the user: keep these changes]\nv2');
    expect(documentText('v1', false)).toBe('v1');
  });
});

describe('how the run ends at a checkpoint', () => {
  const bp = loadToml(
    '[agent]\nname = "x"\n[stages.plan]\n[stages.plan.transitions.fix]\ncondition = "error"\n[stages.fix]\n',
  ).blueprint!;
  const state = { stage: 'plan' } as Parameters<typeof departure>[0];

  it('aborts on a visit that ended cancelled, and fails with checkpoint-unanswered whatever its error edges', () => {
    expect(departure(state, bp, 'cancelled', 'checkpoint "p" was answered "Abort"')).toEqual({
      kind: 'abort',
      message: 'stage "plan": checkpoint "p" was answered "Abort"',
    });
    expect(departure(state, bp, 'error', 'went unanswered', 'checkpoint-unanswered')).toEqual({
      kind: 'fail',
      code: 'checkpoint-unanswered',
      message: 'stage "plan": went unanswered',
    });
  });
});

describe("a visit's reports", () => {
  it('are taken in the order the visit sent them, whatever order they arrive in', () => {
    const a: ReportOrder = { at: 10, seq: 4 };
    expect(reportIsStale(a, { at: 10, seq: 3 })).toBe(true);
    expect(reportIsStale(a, { at: 9, seq: 9 })).toBe(true);
    expect(reportIsStale(a, { at: 10, seq: 5 })).toBe(false);
    // After a continue-as-new the numbers restart, later in time.
    expect(reportIsStale(a, { at: 11, seq: 1 })).toBe(false);
    // Reports of visits recorded before they were numbered are always taken.
    expect(reportIsStale(a, undefined)).toBe(false);
    expect(reportIsStale(undefined, a)).toBe(false);
  });
});

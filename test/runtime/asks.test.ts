/**
 * The questions of the asking tools and the forms their answers take
 * (docs/reference/interaction.md#the-asking-tools, docs/reference/interaction.md#answering):
 * the ask a call puts, the `answer` argument read and fitted to its
 * question (`bad-answer` otherwise), what the model reads back, and the
 * command and Web UI argument that answer each form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchLabel } from '../../src/blueprint/option-labels.js';
import { classifyCall, questionWaits } from '../../src/runtime/calls.js';
import { answerArguments, answerJson, fitAnswer, questionResult, toolAsk } from '../../src/runtime/people/asks.js';
import { runStatus, waitingKind } from '../../src/runtime/people/status.js';
import {
  checkOperatorRequest,
  isRefusal,
  type OperatorRequest,
  parseOperatorRequest,
} from '../../src/runtime/people/updates.js';
import { applyOperatorRequest, freshStageOperators } from '../../src/runtime/people/visit-side.js';
import type { PendingAsk } from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { toolSpecs } from '../../src/tools/specs.js';

const at = { since: 0, deadline: 60_000 };
const call = (name: string, args: Record<string, unknown>) => ({ id: 'c1', name, arguments: args });
const choice: PendingAsk = {
  kind: 'answer',
  call: 'c1',
  tool: 'ask_user_choice',
  subject: 'Which store?',
  ...at,
  form: 'choice',
  options: ['Postgres', 'SQLite'],
};
const { options: _options, form: _form, ...question } = choice;
const confirm: PendingAsk = { ...question, tool: 'ask_user_confirm', form: 'confirm' };
const review: PendingAsk = { ...question, tool: 'present_for_review', form: 'review', document: '# Plan' };
const edit: PendingAsk = { ...question, tool: 'edit_document', form: 'edit', document: 'v1' };
const text: PendingAsk = { ...question, tool: 'ask_user' };
const ctx = { stage: 'plan', acceptsMessages: true, inferences: 1, visitTurns: 1, inferring: false };

function code(value: unknown): string | undefined {
  return isRefusal(value) ? value.code : undefined;
}

describe('the question a call puts', () => {
  it('is in the form of its tool, with its options and document', () => {
    expect(toolAsk(call('ask_user_choice', { prompt: 'Which store?', options: ['Postgres', 'SQLite'] }), at)).toEqual(
      choice,
    );
    expect(toolAsk(call('ask_user_confirm', { prompt: 'Drop it?' }), at)).toMatchObject({ form: 'confirm' });
    expect(toolAsk(call('present_for_review', { markdown: '# Plan' }), at)).toMatchObject({
      form: 'review',
      subject: 'Review',
      document: '# Plan',
    });
    expect(toolAsk(call('edit_document', { content: 'v1' }), at)).toMatchObject({ form: 'edit', document: 'v1' });
    expect(toolAsk(call('ask_user_text', { prompt: 'Which branch?' }), at)).toMatchObject({
      tool: 'ask_user',
      subject: 'Which branch?',
    });
    // A long argument the inference stored is a blob reference; the question shows its preview.
    const ref = { hash: 'h', bytes: 5000, preview: 'A long question' };
    expect(toolAsk(call('ask_user_confirm', { prompt: ref }), at)).toMatchObject({ subject: 'A long question' });
    expect(toolAsk(call('present_for_review', { title: 'T', markdown: ref }), at)).toMatchObject({ document: ref });
  });

  it('is not put without the arguments it needs, and the model reads why', () => {
    expect(toolAsk(call('ask_user_choice', { prompt: 'Which?', options: ['only'] }), at)).toEqual({
      refused: '[missing-argument] ask_user_choice needs `options`: at least two options to pick from.',
    });
    expect(toolAsk(call('ask_user_confirm', {}), at)).toMatchObject({ refused: expect.stringContaining('`prompt`') });
    expect(toolAsk(call('present_for_review', { title: 'T' }), at)).toMatchObject({
      refused: expect.stringContaining('`markdown`'),
    });
    expect(toolAsk(call('edit_document', { content: '  ' }), at)).toMatchObject({
      refused: expect.stringContaining('`content`'),
    });
    expect(toolAsk(call('ask_user', {}), at)).toMatchObject({ refused: expect.stringContaining('`question`') });
  });

  it('is a question of classifyCall once the stage is given the tool, and asks unattended only when required', () => {
    const bp = {
      stages: [{ name: 's', availableTools: ['ask_user_choice'], requiredTools: ['ask_user_choice'] }],
    } as unknown as Blueprint;
    expect(classifyCall(bp, 's', { name: 'ask_user_choice', arguments: {} }, true)).toEqual({ kind: 'question' });
    expect(classifyCall(bp, 's', { name: 'ask_user_confirm', arguments: {} }, false)).toEqual({ kind: 'refused' });
    expect(questionWaits(bp, 's', 'ask_user_choice', true)).toBe(true);
    expect(questionWaits(bp, 's', 'ask_user_confirm', true)).toBe(false);
    expect(questionWaits(bp, 's', 'ask_user_confirm', false)).toBe(true);
  });

  it('has the arguments of the original in the schema the model sees', () => {
    const specs = toolSpecs(['ask_user_choice', 'ask_user_confirm', 'present_for_review', 'edit_document']);
    expect(specs.map((s) => [s.name, (s.parameters as { required: string[] }).required])).toEqual([
      ['ask_user_choice', ['prompt', 'options']],
      ['ask_user_confirm', ['prompt']],
      ['present_for_review', ['title', 'markdown']],
      ['edit_document', ['content']],
    ]);
  });
});

describe('an answer', () => {
  it('is read from a string or an object with exactly one of text, choice and yes', () => {
    expect(parseOperatorRequest('answer', { call: 'c1', choice: 2 })).toEqual({
      kind: 'answer',
      call: 'c1',
      choice: 2,
    });
    expect(parseOperatorRequest('answer', { choice: 'SQLite' })).toEqual({ kind: 'answer', choice: 'SQLite' });
    expect(parseOperatorRequest('answer', { yes: false })).toEqual({ kind: 'answer', yes: false });
    expect(code(parseOperatorRequest('answer', { text: 'a', yes: true }))).toBe('bad-update');
    expect(code(parseOperatorRequest('answer', { choice: 0 }))).toBe('bad-update');
    expect(code(parseOperatorRequest('answer', { choice: 1.5 }))).toBe('bad-update');
    expect(code(parseOperatorRequest('answer', { yes: 'yes' }))).toBe('bad-update');
    expect(code(parseOperatorRequest('answer', { choice: ' ' }))).toBe('text-empty');
    expect(code(parseOperatorRequest('answer', { text: '' }))).toBe('text-empty');
  });

  it('fits a choice by its 1-based number or its text, folded', () => {
    expect(fitAnswer(choice, { choice: 2 })).toEqual({ text: 'SQLite', picked: 'SQLite' });
    expect(fitAnswer(choice, { choice: 'sqlite' })).toEqual({ text: 'SQLite', picked: 'SQLite' });
    expect(fitAnswer(choice, { text: 'Post-gres' })).toEqual({ text: 'Postgres', picked: 'Postgres' });
    expect(fitAnswer(choice, { choice: 3 })).toEqual({
      misfit:
        'The question of call c1 takes one of its options, 1. "Postgres", 2. "SQLite": send "choice" with the option\'s number or its text.',
    });
    expect(fitAnswer(choice, { yes: true })).toHaveProperty('misfit');
  });

  it('fits a yes/no question by yes or by the words', () => {
    expect(fitAnswer(confirm, { yes: true })).toEqual({ text: 'Yes', picked: 'Yes' });
    expect(fitAnswer(confirm, { text: ' N ' })).toEqual({ text: 'No', picked: 'No' });
    expect(fitAnswer(confirm, { text: 'maybe' })).toHaveProperty('misfit');
    expect(fitAnswer(confirm, { choice: 1 })).toHaveProperty('misfit');
  });

  it('fits a review with feedback or an acknowledgement, an edit with the document or yes', () => {
    expect(fitAnswer(review, { text: 'Add tests.' })).toEqual({ text: 'Add tests.' });
    expect(fitAnswer(review, { yes: true })).toEqual({ text: '' });
    expect(fitAnswer(review, { yes: false })).toHaveProperty('misfit');
    expect(fitAnswer(edit, { text: 'v2' })).toEqual({ text: 'v2' });
    expect(fitAnswer(edit, { yes: true })).toEqual({ text: '' });
    expect(fitAnswer(edit, { choice: 1 })).toHaveProperty('misfit');
  });

  it('fits a text question with text, and passes an optional one with yes', () => {
    expect(fitAnswer(text, { text: 'main' })).toEqual({ text: 'main' });
    expect(fitAnswer(text, { yes: true })).toHaveProperty('misfit');
    expect(fitAnswer({ ...text, optional: true }, { yes: true })).toEqual({ text: '' });
  });

  it('is refused with bad-answer by the run and by the visit when it does not fit, and shown back when it does', () => {
    const op: OperatorRequest = { kind: 'answer', choice: 5 };
    expect(checkOperatorRequest(op, { ended: false, paused: false, asks: [choice] })?.code).toBe('bad-answer');
    const s = { ...freshStageOperators(), asks: [choice] };
    expect(applyOperatorRequest(s, op, ctx).reply).toMatchObject({ ok: false, refusal: { code: 'bad-answer' } });
    const { state, reply } = applyOperatorRequest(s, { kind: 'answer', choice: 1 }, ctx);
    expect(reply).toEqual({ ok: true, value: { call: 'c1', question: 'Which store?', answer: 'Postgres' } });
    expect(state.decisions.c1).toEqual({ kind: 'answered', text: 'Postgres' });
    expect(state.asks).toEqual([]);
  });

  it('never throws and always fits or says why, whatever the argument', () => {
    fc.assert(
      fc.property(fc.constantFrom(choice, confirm, review, edit, text), fc.anything(), (ask, arg) => {
        const op = parseOperatorRequest('answer', arg);
        if (isRefusal(op) || op.kind !== 'answer') return;
        const { kind: _k, call: _c, ...answer } = op;
        const fitted = fitAnswer(ask, answer);
        expect('misfit' in fitted || typeof fitted.text === 'string').toBe(true);
        if (!('misfit' in fitted) && ask.form === 'choice') expect(ask.options).toContain(fitted.text);
      }),
    );
  });
});

describe('what the model reads', () => {
  it('is the answer in the words of its tool', () => {
    expect(questionResult({ ask: choice, answered: 'SQLite', waited: true })).toEqual({
      text: 'User chose: SQLite',
      isError: false,
    });
    expect(questionResult({ ask: confirm, answered: 'No', waited: true }).text).toBe('User answered: No');
    expect(questionResult({ ask: review, answered: '', waited: true }).text).toBe(
      'User reviewed the document and acknowledged.',
    );
    expect(questionResult({ ask: review, answered: 'More tests.', waited: true }).text).toBe(
      'User feedback: More tests.',
    );
    expect(questionResult({ ask: edit, answered: 'v2', waited: true }).text).toBe('User-edited document:\nv2');
    expect(questionResult({ ask: edit, answered: '', waited: true }).text).toMatch(/^User made no changes/);
    expect(questionResult({ ask: text, answered: 'main', waited: true }).text).toBe('main');
  });

  it('says why there is no answer: timed out, nobody attends, or an argument missing', () => {
    expect(questionResult({ ask: choice, waited: true })).toEqual({
      text: '[ask-timed-out] Nobody answered within 1m; go on without the answer.',
      isError: true,
    });
    expect(questionResult({ waited: false }).text).toMatch(/^\[ask-user-unattended\]/);
    expect(questionResult({ refused: '[missing-argument] x', waited: true }).text).toBe('[missing-argument] x');
  });
});

describe('how a question is answered', () => {
  it('names the lev answer flags and the Web UI argument of each form', () => {
    expect(answerArguments(choice)).toBe('--choice <1-2>');
    expect(answerArguments(confirm)).toBe('--yes (or --no)');
    expect(answerArguments(review)).toBe('"feedback" (or --yes to acknowledge)');
    expect(answerArguments(edit)).toBe('--file <edited file> (or --yes to keep it)');
    expect(answerArguments(text)).toBe('"…"');
    expect(answerJson(choice)).toBe('{"call": "c1", "choice": 1}');
    expect(answerJson(confirm)).toBe('{"call": "c1", "yes": true}');
    expect(answerJson(text)).toBe('{"call": "c1", "text": "…"}');
  });

  it('waits as a checkpoint when an interaction point asks, as an answer otherwise', () => {
    const none = { asks: [], waitingReply: false, paused: false, stuck: false };
    expect(waitingKind({ ...none, asks: [choice] })).toBe('answer');
    expect(waitingKind({ ...none, asks: [{ ...choice, point: 'plan_approval' }] })).toBe('checkpoint');
    expect(runStatus({ ...none, asks: [{ ...choice, point: 'plan_approval' }] })).toBe('waiting');
  });

  it('matches a label exactly, else with dashes, spaces and case set aside', () => {
    const labels = ['Auto-approve', 'Revise — with notes'];
    expect(matchLabel(labels, 'Auto approve')).toBe('Auto-approve');
    expect(matchLabel(labels, 'revise - with notes')).toBe('Revise — with notes');
    expect(matchLabel(labels, 'Revise')).toBeUndefined();
  });
});

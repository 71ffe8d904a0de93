/** The operator rules (docs/reference/operators.md): update validation, what a visit does with each update, statuses. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callSubject } from '../../src/runtime/calls.js';
import { runStatus, waitingKind } from '../../src/runtime/people/status.js';
import {
  checkOperatorRequest,
  isRefusal,
  MAX_OPERATOR_TEXT_BYTES,
  type OperatorRequest,
  parseOperatorRequest,
  validateOperatorRequest,
} from '../../src/runtime/people/updates.js';
import {
  applyBetweenVisits,
  applyOperatorRequest,
  freshStageOperators,
  operatorCarry,
  type StageRequestContext,
} from '../../src/runtime/people/visit-side.js';
import { askTimedOutText, deniedText } from '../../src/runtime/texts.js';
import type { PendingAsk } from '../../src/runtime/types.js';
import { utf8Bytes } from '../../src/truncate.js';

const ask = (call: string, kind: PendingAsk['kind'] = 'approval'): PendingAsk => ({
  kind,
  call,
  tool: 'shell',
  subject: kind === 'approval' ? 'shell rm -rf build' : 'Which branch?',
  since: 0,
  deadline: 60_000,
});
const open = { ended: false, paused: false, asks: [] as PendingAsk[] };
const ctx: StageRequestContext = {
  stage: 'build',
  acceptsMessages: true,
  inferences: 6,
  visitTurns: 2,
  inferring: false,
};

function code(value: unknown): string | undefined {
  return isRefusal(value) ? value.code : undefined;
}

describe('parseOperatorRequest', () => {
  it('reads each update as the Web UI and lev send it', () => {
    expect(parseOperatorRequest('message', 'Look at the tests')).toEqual({
      kind: 'message',
      text: 'Look at the tests',
    });
    expect(parseOperatorRequest('approve', undefined)).toEqual({ kind: 'approve' });
    expect(parseOperatorRequest('deny', { call: 'c1', note: 'not now' })).toEqual({
      kind: 'deny',
      call: 'c1',
      note: 'not now',
    });
    expect(parseOperatorRequest('answer', 'main')).toEqual({ kind: 'answer', text: 'main' });
    expect(parseOperatorRequest('answer', { call: 'q', text: 'main' })).toEqual({
      kind: 'answer',
      call: 'q',
      text: 'main',
    });
    expect(parseOperatorRequest('pause', undefined)).toEqual({ kind: 'pause' });
    expect(parseOperatorRequest('resume', null)).toEqual({ kind: 'resume' });
  });

  it('refuses empty text, text over 64 KiB and wrong shapes with their codes', () => {
    expect(code(parseOperatorRequest('message', '  \n'))).toBe('text-empty');
    expect(code(parseOperatorRequest('message', 'x'.repeat(MAX_OPERATOR_TEXT_BYTES + 1)))).toBe('text-too-large');
    // 16,385 four-byte characters are 65,540 bytes though only 32,770 UTF-16 units.
    expect(code(parseOperatorRequest('message', '😀'.repeat(16_385)))).toBe('text-too-large');
    expect(parseOperatorRequest('message', 'x'.repeat(MAX_OPERATOR_TEXT_BYTES))).toMatchObject({ kind: 'message' });
    expect(code(parseOperatorRequest('message', 42))).toBe('bad-update');
    expect(code(parseOperatorRequest('message', { text: 'hi' }))).toBe('bad-update');
    expect(code(parseOperatorRequest('approve', 'c1'))).toBe('bad-update');
    expect(code(parseOperatorRequest('deny', { note: 7 }))).toBe('bad-update');
    expect(code(parseOperatorRequest('deny', { note: 'n'.repeat(MAX_OPERATOR_TEXT_BYTES + 1) }))).toBe(
      'text-too-large',
    );
    expect(code(parseOperatorRequest('answer', { call: 'q' }))).toBe('bad-update');
    expect(code(parseOperatorRequest('answer', ''))).toBe('text-empty');
    // `pause` and `resume` take nothing: an argument would pause a run by accident of a typo.
    expect(parseOperatorRequest('pause', {})).toEqual({ kind: 'pause' });
    for (const arg of ['garbage', 0, [], { extra: 1 }]) {
      expect(code(parseOperatorRequest('pause', arg))).toBe('bad-update');
      expect(code(parseOperatorRequest('resume', arg))).toBe('bad-update');
    }
  });

  it('never throws, whatever the argument', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('message', 'approve', 'deny', 'answer', 'pause', 'resume' as const),
        fc.anything(),
        (u, arg) => {
          const out = parseOperatorRequest(u, arg);
          expect(isRefusal(out) || typeof (out as OperatorRequest).kind === 'string').toBe(true);
        },
      ),
    );
  });
});

describe('checkOperatorRequest', () => {
  it('refuses every update to a run that has ended', () => {
    for (const op of [{ kind: 'message', text: 'x' }, { kind: 'pause' }, { kind: 'approve' }] as OperatorRequest[])
      expect(checkOperatorRequest(op, { ...open, ended: true })?.code).toBe('run-finished');
  });

  it('finds the call a decision is about, or says why not', () => {
    expect(checkOperatorRequest({ kind: 'approve' }, open)?.code).toBe('nothing-pending');
    expect(checkOperatorRequest({ kind: 'approve' }, { ...open, asks: [ask('c1')] })).toBeUndefined();
    expect(checkOperatorRequest({ kind: 'deny', call: 'c9' }, { ...open, asks: [ask('c1')] })?.code).toBe(
      'call-not-waiting',
    );
    expect(checkOperatorRequest({ kind: 'approve' }, { ...open, asks: [ask('c1'), ask('c2')] })?.code).toBe(
      'call-ambiguous',
    );
    expect(
      checkOperatorRequest({ kind: 'approve', call: 'c2' }, { ...open, asks: [ask('c1'), ask('c2')] }),
    ).toBeUndefined();
    // An approval is not an answer: a question waits, no call does.
    expect(checkOperatorRequest({ kind: 'approve' }, { ...open, asks: [ask('q', 'answer')] })?.code).toBe(
      'nothing-pending',
    );
    expect(
      checkOperatorRequest({ kind: 'answer', text: 'y' }, { ...open, asks: [ask('q', 'answer')] }),
    ).toBeUndefined();
  });

  it('pauses a running run and resumes a paused one, and refuses the other way round', () => {
    expect(checkOperatorRequest({ kind: 'pause' }, open)).toBeUndefined();
    expect(checkOperatorRequest({ kind: 'pause' }, { ...open, paused: true })?.code).toBe('already-paused');
    expect(checkOperatorRequest({ kind: 'resume' }, open)?.code).toBe('not-paused');
    expect(checkOperatorRequest({ kind: 'resume' }, { ...open, paused: true })).toBeUndefined();
  });

  it('validateOperatorRequest reads, then checks', () => {
    expect(code(validateOperatorRequest('message', '', { ...open, ended: true }))).toBe('text-empty');
    expect(code(validateOperatorRequest('message', 'hi', { ...open, ended: true }))).toBe('run-finished');
    expect(validateOperatorRequest('approve', { call: 'c1' }, { ...open, asks: [ask('c1')] })).toEqual({
      kind: 'approve',
      call: 'c1',
    });
  });
});

describe('applyOperatorRequest', () => {
  it('queues a message for the next inference and says which turn reads it', () => {
    const s = freshStageOperators();
    const { state, reply } = applyOperatorRequest(s, { kind: 'message', text: 'hi' }, ctx);
    expect(state.inbox).toEqual(['hi']);
    expect(reply).toEqual({ ok: true, value: { stage: 'build', turn: 7, stageTurn: 3, held: false } });
    // With an inference in flight, the one after it reads the message.
    expect(applyOperatorRequest(s, { kind: 'message', text: 'hi' }, { ...ctx, inferring: true }).reply).toEqual({
      ok: true,
      value: { stage: 'build', turn: 8, stageTurn: 4, held: false },
    });
  });

  it('holds messages in a stage that does not accept them, unless it waits for a reply', () => {
    const closed = { ...ctx, acceptsMessages: false };
    const held = applyOperatorRequest(freshStageOperators(), { kind: 'message', text: 'later' }, closed);
    expect(held.state).toMatchObject({ inbox: [], held: ['later'] });
    expect(held.reply).toEqual({ ok: true, value: { stage: null, turn: null, stageTurn: null, held: true } });
    const reply = applyOperatorRequest(
      { ...freshStageOperators(), waitingReply: true },
      { kind: 'message', text: 'go' },
      closed,
    );
    expect(reply.state.inbox).toEqual(['go']);
  });

  it('records a decision once, and refuses a second one for the same call', () => {
    const s = { ...freshStageOperators(), asks: [ask('c1'), ask('c2')] };
    const first = applyOperatorRequest(s, { kind: 'deny', call: 'c1', note: 'use git clean' }, ctx);
    expect(first.reply).toEqual({
      ok: true,
      value: { call: 'c1', tool: 'shell', decision: 'denied', note: 'use git clean' },
    });
    expect(first.state.asks.map((a) => a.call)).toEqual(['c2']);
    expect(first.state.decisions).toEqual({ c1: { kind: 'denied', note: 'use git clean' } });
    const again = applyOperatorRequest(first.state, { kind: 'approve', call: 'c1' }, ctx);
    expect(again.reply).toMatchObject({ ok: false, refusal: { code: 'call-not-waiting' } });
    expect(again.state).toBe(first.state);
  });

  it('answers a question with the text as given', () => {
    const s = { ...freshStageOperators(), asks: [ask('q1', 'answer')] };
    const { state, reply } = applyOperatorRequest(s, { kind: 'answer', text: 'the main branch' }, ctx);
    expect(reply).toEqual({ ok: true, value: { call: 'q1', question: 'Which branch?' } });
    expect(state.decisions.q1).toEqual({ kind: 'answered', text: 'the main branch' });
  });

  it('pauses and resumes', () => {
    const paused = applyOperatorRequest(freshStageOperators(), { kind: 'pause' }, ctx);
    expect(paused.state.paused).toBe(true);
    expect(applyOperatorRequest(paused.state, { kind: 'pause' }, ctx).reply).toMatchObject({
      ok: false,
      refusal: { code: 'already-paused' },
    });
    expect(applyOperatorRequest(paused.state, { kind: 'resume' }, ctx).state.paused).toBe(false);
  });

  it('never loses a message: every accepted one is in the inbox or held, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.boolean())), (sends) => {
        let s = freshStageOperators();
        for (const [text, accepts] of sends)
          s = applyOperatorRequest(s, { kind: 'message', text }, { ...ctx, acceptsMessages: accepts }).state;
        const carry = operatorCarry(s);
        expect([...(carry.inbox ?? []), ...(carry.held ?? [])].sort()).toEqual(sends.map(([t]) => t).sort());
        // The next visit that accepts messages reads them all, inbox first.
        expect(freshStageOperators(carry, true).inbox).toEqual([...(carry.inbox ?? []), ...(carry.held ?? [])]);
      }),
    );
  });
});

describe('between visits', () => {
  it('holds messages and the pause for the next visit, and has nothing to approve', () => {
    const carry = { inbox: [], held: [], paused: false };
    expect(applyBetweenVisits(carry, { kind: 'message', text: 'hi' })).toEqual({
      carry: { inbox: [], held: ['hi'], paused: false },
      reply: { ok: true, value: { stage: null, turn: null, stageTurn: null, held: true } },
    });
    expect(applyBetweenVisits(carry, { kind: 'pause' }).carry.paused).toBe(true);
    expect(applyBetweenVisits(carry, { kind: 'resume' }).reply).toMatchObject({ refusal: { code: 'not-paused' } });
    expect(applyBetweenVisits(carry, { kind: 'approve' }).reply).toMatchObject({
      refusal: { code: 'nothing-pending' },
    });
  });
});

describe('statuses', () => {
  const none = { asks: [], waitingReply: false, paused: false, stuck: false };
  it('says waiting for a person before paused, paused before stuck', () => {
    expect(runStatus(none)).toBe('running');
    expect(runStatus({ ...none, stuck: true })).toBe('stuck');
    expect(runStatus({ ...none, paused: true, stuck: true })).toBe('paused');
    expect(runStatus({ ...none, paused: true, asks: [ask('c')] })).toBe('waiting');
    expect(runStatus({ ...none, waitingReply: true })).toBe('waiting');
    expect(waitingKind({ ...none, asks: [ask('q', 'answer')] })).toBe('answer');
    expect(waitingKind({ ...none, paused: true })).toBe('resume');
    expect(waitingKind(none)).toBeUndefined();
  });

  it('says waiting, reason tool-worker-missing, while the tool worker is away (docs/reference/long-runs.md#tool_worker_patience)', () => {
    const toolWorker = { taskQueue: 'q', workdir: '/w', since: 0, failsAt: 1 };
    expect(runStatus({ ...none, toolWorker })).toBe('waiting');
    expect(waitingKind({ ...none, toolWorker })).toBe('tool-worker-missing');
    // Paused meanwhile: still waiting for the worker; a person's ask comes first.
    expect(runStatus({ ...none, paused: true, toolWorker })).toBe('waiting');
    expect(waitingKind({ ...none, asks: [ask('c')], toolWorker })).toBe('approval');
  });
});

describe('texts', () => {
  it('name the tool and the note, coded', () => {
    expect(deniedText('shell rm -rf build', 'use git clean')).toBe(
      '[call-denied] The operator denied shell rm -rf build: use git clean. The call was not run.',
    );
    expect(deniedText('shell ls')).toBe('[call-denied] The operator denied shell ls. The call was not run.');
    expect(askTimedOutText({ kind: 'approval', tool: 'shell' }, 1800)).toBe(
      '[ask-timed-out] Nobody approved shell within 30m; the call was not run.',
    );
    expect(askTimedOutText({ kind: 'answer', tool: 'ask_user' }, 86_400)).toContain('within 1d');
    expect(callSubject({ name: 'shell', arguments: { command: 'make test\nmake lint' } })).toBe('shell make test');
    expect(callSubject({ name: 'current_time', arguments: {} })).toBe('current_time');
  });

  it('utf8Bytes counts like Buffer.byteLength', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Bytes(s)).toBe(Buffer.byteLength(s));
      }),
    );
  });
});

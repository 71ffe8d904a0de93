/** The shape checks of the signal handlers (docs/reference/operators.md#rejected-messages). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEVIATH_METRICS } from '../../src/runtime/fleet-metrics.js';
import { mergeRejected, RECENT_REJECTED } from '../../src/runtime/live-progress.js';
import {
  checkForwardedRequest,
  checkMessageText,
  checkNoArgument,
  checkStageReport,
  noteRejected,
  rejectedLine,
  rejectedMetric,
} from '../../src/runtime/message-checks.js';
import { MAX_OPERATOR_TEXT_BYTES } from '../../src/runtime/people/updates.js';
import { NO_WAITS } from '../../src/runtime/people/visit-side.js';
import { utf8Bytes } from '../../src/truncate.js';

/** A report as a visit of v0.2.0 sent it (test/histories/v0.2.0): no `seq`, no `workers`. */
const recorded = {
  kind: 'waits',
  waits: { asks: [], waitingReply: false, paused: false, heldMessages: 0 },
  counters: {
    at: 1796191954292,
    inferences: 1,
    visitTurns: 1,
    usage: { calls: 1, promptTokens: 982, completionTokens: 64, cacheReadTokens: 0, cacheWriteTokens: 0 },
    cost: { usd: null, priced: [], unpriced: ['scripted:script.toml'] },
    regions: [{ name: 'task', kind: 'pinned', tokens: 19, budget: 800, entries: 1 }],
    window: { max: 16000, used: 257, gap: 0 },
    recentCalls: [{ tool: 'todo_add', subject: 'todo_add', ok: true }],
    gates: { attempts: 0, blocked: 0 },
  },
};

const ask = {
  kind: 'answer',
  call: 'call_2_0',
  tool: 'ask_user_choice',
  subject: 'Which branch?',
  since: 1,
  deadline: 2,
  form: 'choice',
  options: ['main', 'release'],
  document: { hash: 'ab', bytes: 3000, preview: 'x' },
};

const ack = {
  kind: 'ack',
  id: 3,
  reply: { ok: true, value: { call: 'call_2_0', question: 'Which branch?', answer: 'release' } },
  waits: { ...NO_WAITS, asks: [ask], toolWorker: { taskQueue: 'q', workdir: '/w', since: 1, failsAt: 2 } },
  counters: { ...recorded.counters, workers: { queued: 1, running: 2, done: 0, failed: 0 } },
  seq: 4,
};

const cancelled = {
  kind: 'cancelled',
  outcome: {
    end: 'cancelled',
    finalContent: '',
    carried: { state: { regions: [] }, snapshot: null, ops: [] },
    inferences: 2,
    visitTurns: 2,
    facts: {},
    usage: recorded.counters.usage,
    operators: { inbox: ['hi'], held: [], paused: false },
  },
};

/** The wrong shapes the bad-message integration test sends too (test/integration/bad-messages.test.ts). */
const WRONG = ['garbage', 42, null, [], [1, 2], {}, { kind: 'nope' }, 'x'.repeat(1 << 20)];

describe('checkStageReport', () => {
  it('takes every kind of report a visit sends, earlier versions and unknown extra fields included', () => {
    for (const report of [recorded, ack, cancelled, { ...recorded, extra: 1 }, { kind: 'waits', waits: NO_WAITS }])
      expect(checkStageReport(report)).toEqual({ ok: true, value: report });
    const refused = { ...ack, reply: { ok: false, refusal: { code: 'nothing-pending', message: 'No call.' } } };
    expect(checkStageReport(refused).ok).toBe(true);
  });

  it('says what is wrong with a report, without quoting it', () => {
    expect(checkStageReport('garbage')).toEqual({
      ok: false,
      problem: 'the report should be an object; it is a string',
    });
    expect(checkStageReport({ kind: 'waits' })).toEqual({
      ok: false,
      problem: 'the report.waits should be an object; it is missing',
    });
    expect(checkStageReport({ ...ack, reply: { ok: true } })).toMatchObject({
      problem: 'the report.reply.value should be an object; it is missing',
    });
    expect(checkStageReport({ ...recorded, counters: { ...recorded.counters, regions: [{}] } })).toMatchObject({
      problem: 'the report.counters.regions[0].name should be a string; it is missing',
    });
    const carried = { ...cancelled.outcome, operators: { inbox: 'hi' } };
    expect(checkStageReport({ kind: 'cancelled', outcome: carried })).toMatchObject({ ok: false });
    for (const arg of WRONG) {
      const checked = checkStageReport(arg);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.problem.length).toBeLessThan(200);
    }
  });

  it('never throws, whatever arrives', () => {
    fc.assert(
      fc.property(fc.anything(), (arg) => {
        expect(typeof checkStageReport(arg).ok).toBe('boolean');
      }),
    );
    const kinds = fc.record({ kind: fc.constantFrom('ack', 'waits', 'cancelled'), waits: fc.anything() });
    fc.assert(
      fc.property(kinds, (arg) => {
        expect(checkStageReport(arg).ok).toBe(false);
      }),
    );
  });
});

describe('checkForwardedRequest', () => {
  it('takes each operation the run forwards, as its validator read it', () => {
    for (const op of [
      { kind: 'message', text: 'Say which branch you used.' },
      { kind: 'approve', call: 'call_0_0' },
      { kind: 'deny', call: 'call_1_0', note: 'keep b.txt as it is' },
      { kind: 'answer', text: 'release', call: 'call_2_0' },
      { kind: 'answer', choice: 2 },
      { kind: 'answer', yes: false },
      { kind: 'pause' },
      { kind: 'resume' },
    ])
      expect(checkForwardedRequest({ id: 1, op })).toEqual({ ok: true, value: { id: 1, op } });
  });

  it('drops what no validator would have let through', () => {
    expect(checkForwardedRequest('garbage')).toEqual({
      ok: false,
      problem: 'the request should be an object; it is a string',
    });
    expect(checkForwardedRequest({ id: 1 })).toMatchObject({
      problem: 'the request.op should be an object; it is missing',
    });
    expect(checkForwardedRequest({ id: 1, op: { kind: 'explode' } })).toMatchObject({ ok: false });
    expect(checkForwardedRequest({ id: 1, op: { kind: 'message', text: 7 } })).toMatchObject({ ok: false });
    expect(checkForwardedRequest({ id: 1, op: { kind: 'answer' } })).toMatchObject({ ok: false });
    const huge = { id: 1, op: { kind: 'message', text: 'x'.repeat(MAX_OPERATOR_TEXT_BYTES + 1) } };
    expect(checkForwardedRequest(huge)).toMatchObject({ ok: false });
    for (const arg of WRONG) expect(checkForwardedRequest(arg).ok).toBe(false);
    fc.assert(
      fc.property(fc.anything(), (arg) => {
        expect(typeof checkForwardedRequest(arg).ok).toBe('boolean');
      }),
    );
  });
});

describe('checkMessageText', () => {
  it('takes text as the `message` update does', () => {
    expect(checkMessageText('/done')).toEqual({ ok: true, value: '/done' });
    expect(checkMessageText('garbage')).toEqual({ ok: true, value: 'garbage' });
    for (const arg of [...WRONG.filter((a) => a !== 'garbage'), '  ']) expect(checkMessageText(arg).ok).toBe(false);
  });
});

describe('checkNoArgument', () => {
  it('takes a `hand-over` as the run sends it, with nothing, and drops one with anything', () => {
    expect(checkNoArgument([])).toEqual({ ok: true, value: undefined });
    expect(checkNoArgument([undefined])).toEqual({ ok: true, value: undefined });
    expect(checkNoArgument([null])).toEqual({ ok: false, problem: 'it takes no argument; it was given null' });
    for (const arg of WRONG) expect(checkNoArgument([arg]).ok).toBe(false);
    expect(checkNoArgument([undefined, 'x'])).toMatchObject({ problem: 'it takes no argument; it was given a string' });
  });
});

describe('what a dropped message leaves', () => {
  it('a short line naming the message and the problem', () => {
    expect(rejectedLine('stage-report', 'the report should be an object; it is a string')).toBe(
      '[bad-signal] `stage-report` signal dropped: the report should be an object; it is a string',
    );
    expect(utf8Bytes(rejectedLine('operator', 'é'.repeat(1 << 20)))).toBeLessThanOrEqual(300);
  });

  it('counts every one and keeps the last few, the run and its visit together', () => {
    let r = noteRejected(undefined, 'a');
    for (const line of ['b', 'c', 'd']) r = noteRejected(r, line);
    expect(r).toEqual({ count: 4, recent: ['b', 'c', 'd'] });
    expect(r.recent).toHaveLength(RECENT_REJECTED);
    expect(mergeRejected(undefined, undefined)).toBeUndefined();
    expect(mergeRejected(r, undefined)).toBe(r);
    expect(mergeRejected({ count: 1, recent: ['run'] }, { count: 2, recent: ['v1', 'v2'] })).toEqual({
      count: 3,
      recent: ['run', 'v1', 'v2'],
    });
  });

  it('is counted in leviath_rejected_messages_total', () => {
    const add = rejectedMetric('visit', 'operator');
    expect(LEVIATH_METRICS[add.metric].name).toBe('leviath_rejected_messages_total');
    expect(add).toEqual({ metric: 'rejectedMessages', value: 1, tags: { workflow: 'visit', message: 'operator' } });
  });
});

/** The run's own progress while a visit runs (docs/reference/operators.md#the-progress-query): the throttle and the merge. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  freshMark,
  PROGRESS_REPORT_INTERVAL_MS,
  progressReportDue,
  type VisitCounters,
  withLiveVisit,
  withVisitProgress,
} from '../../src/runtime/live-progress.js';
import type { PendingAsk } from '../../src/runtime/types.js';
import { emptyUsage, type Progress } from '../../src/runtime/types.js';

const usage = (calls: number, promptTokens: number) => ({ ...emptyUsage(), calls, promptTokens });

const run: Progress = {
  runId: 'r',
  status: 'running',
  stage: 'build',
  inferences: 4,
  visitTurns: 0,
  regions: [{ name: 'conversation', kind: 'sliding_window', tokens: 100, budget: 1000, entries: 2 }],
  window: { max: 8000, used: 100, gap: 0 },
  gatesForced: [],
  usage: usage(4, 400),
  cost: { usd: 0.01, priced: ['openai:gpt-4o'], unpriced: [] },
  stageWorkflowId: 'r.2.build',
  asks: [],
  paused: false,
  heldMessages: 0,
  recentCalls: [],
  gates: { attempts: 0, blocked: 0 },
};

const counters: VisitCounters = {
  at: 1_000_000,
  inferences: 9,
  visitTurns: 5,
  usage: usage(5, 900),
  cost: { usd: 0.02, priced: ['openai:gpt-4o'], unpriced: [] },
  regions: [{ name: 'conversation', kind: 'sliding_window', tokens: 700, budget: 1000, entries: 12 }],
  window: { max: 8000, used: 700, gap: 0 },
  recentCalls: [{ tool: 'shell', subject: 'shell make', ok: true }],
  gates: { attempts: 1, blocked: 1 },
};

describe('progressReportDue', () => {
  it('reports the first inference of a visit at once, then at most once per interval', () => {
    const mark = freshMark(4);
    expect(progressReportDue(mark, { at: 0, inferences: 4 })).toBe(false);
    expect(progressReportDue(mark, { at: 0, inferences: 5 })).toBe(true);
    const sent = { at: 50_000, inferences: 5 };
    expect(progressReportDue(sent, { at: 50_000 + PROGRESS_REPORT_INTERVAL_MS - 1, inferences: 9 })).toBe(false);
    expect(progressReportDue(sent, { at: 50_000 + PROGRESS_REPORT_INTERVAL_MS, inferences: 9 })).toBe(true);
    // Nothing new to tell: no report however long the visit waited.
    expect(progressReportDue(sent, { at: 10_000_000, inferences: 5 })).toBe(false);
  });

  it('reads time only from inference results: one without an end time reports only as the first', () => {
    expect(progressReportDue(freshMark(0), { at: null, inferences: 1 })).toBe(true);
    expect(progressReportDue({ at: 50_000, inferences: 1 }, { at: null, inferences: 9 })).toBe(false);
  });

  it('sends at most one report per interval over any run of inferences', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30_000 }), { maxLength: 200 }), (gaps) => {
        let mark = freshMark(0);
        let at = 0;
        const sentAt: number[] = [];
        gaps.forEach((gap, i) => {
          at += gap;
          if (progressReportDue(mark, { at, inferences: i + 1 })) {
            sentAt.push(at);
            mark = { at, inferences: i + 1 };
          }
        });
        for (let i = 1; i < sentAt.length; i++)
          expect(sentAt[i]! - sentAt[i - 1]!).toBeGreaterThanOrEqual(PROGRESS_REPORT_INTERVAL_MS);
        // The time the visit ran bounds the reports: one at the start, then one per interval.
        expect(sentAt.length).toBeLessThanOrEqual(1 + Math.floor(at / PROGRESS_REPORT_INTERVAL_MS));
        if (gaps.length > 0) expect(sentAt[0]).toBe(gaps[0]);
      }),
    );
  });
});

describe('withLiveVisit', () => {
  it("shows the live visit's turn, regions and calls, and the run's totals with the visit's usage added", () => {
    const p = withLiveVisit(run, counters);
    expect(p).toMatchObject({
      inferences: 9,
      visitTurns: 5,
      regions: counters.regions,
      window: counters.window,
      recentCalls: counters.recentCalls,
      gates: counters.gates,
      usage: usage(9, 1300),
      reportedAt: 1_000_000,
      finishedVisits: { usage: run.usage, cost: run.cost },
      stageWorkflowId: 'r.2.build',
      status: 'running',
    });
    expect(p.cost.usd).toBeCloseTo(0.03);
  });

  it('is the run alone before the first report, and ignores a report older than what a finished visit handed back', () => {
    expect(withLiveVisit(run, undefined)).toBe(run);
    expect(withLiveVisit({ ...run, inferences: 10 }, counters).inferences).toBe(10);
  });
});

describe('withVisitProgress', () => {
  const visit: Progress = {
    ...run,
    status: 'running',
    inferences: 9,
    visitTurns: 5,
    regions: counters.regions,
    usage: usage(5, 900),
    cost: { usd: 0.02, priced: ['openai:gpt-4o'], unpriced: [] },
    waiting: 'message',
    asks: [],
    paused: false,
    heldMessages: 3,
    stageWorkflowId: undefined,
  };

  it("shows the visit's turn and regions, the run's status and waits, and the whole run's totals", () => {
    const ask: PendingAsk = {
      kind: 'approval',
      call: 'c1',
      tool: 'shell',
      subject: 'shell: make',
      since: 5,
      deadline: 0,
    };
    const waitingRun: Progress = { ...run, status: 'waiting', waiting: 'approval', asks: [ask], paused: true };
    const merged = withVisitProgress(waitingRun, visit);
    expect(merged).toMatchObject({ inferences: 9, visitTurns: 5, regions: visit.regions });
    expect(merged).toMatchObject({ status: 'waiting', waiting: 'approval', asks: [ask], paused: true });
    expect(merged.heldMessages).toBe(3);
    expect(merged.stageWorkflowId).toBe('r.2.build');
    expect(merged.usage).toMatchObject({ calls: 9, promptTokens: 1300 });
    expect(merged.cost.usd).toBeCloseTo(0.03);
  });

  it('counts the signals the run and the visit dropped together', () => {
    expect(withVisitProgress(run, visit).rejected).toBeUndefined();
    const merged = withVisitProgress(
      { ...run, rejected: { count: 1, recent: ['run'] } },
      { ...visit, rejected: { count: 2, recent: ['v1', 'v2'] } },
    );
    expect(merged.rejected).toEqual({ count: 3, recent: ['run', 'v1', 'v2'] });
  });

  it("adds the visit's usage to the finished visits alone when the run already merged a report", () => {
    const reported = withLiveVisit(run, counters);
    expect(withVisitProgress(reported, visit).usage).toMatchObject({ calls: 9, promptTokens: 1300 });
    // Nothing waits in the run: the visit's own `waiting` is not shown.
    expect(withVisitProgress(run, visit).waiting).toBeUndefined();
  });

  it('shows the tool worker the run waits for, as the run saw it (docs/reference/long-runs.md#tool_worker_patience)', () => {
    const toolWorker = { taskQueue: 'q', workdir: '/w', since: 1, failsAt: 2 };
    const away: Progress = { ...run, status: 'waiting', waiting: 'tool-worker-missing', toolWorker };
    expect(withVisitProgress(away, { ...visit, toolWorker: { ...toolWorker, since: 0 } })).toMatchObject({
      status: 'waiting',
      waiting: 'tool-worker-missing',
      toolWorker,
    });
    // Back, as the run knows: the visit's last word about an absence is not shown.
    expect(withVisitProgress(run, { ...visit, toolWorker }).toolWorker).toBeUndefined();
  });
});

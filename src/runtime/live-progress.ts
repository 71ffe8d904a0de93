/**
 * How a run's own `progress` answer stays live while a stage visit runs
 * (docs/reference/operators.md#the-progress-query): the visit reports its
 * counters to the run (with the `stage-report` signal), at most once per
 * `PROGRESS_REPORT_INTERVAL_MS` of workflow time for counting alone, and
 * with every report it sends anyway (a change of its waits, an answer to an
 * update). The run merges the last report into what it knows of its
 * finished visits. Pure: imported by workflow code.
 */
import { addCost } from './spend.js';
import type { Progress, RejectedMessages } from './types.js';
import { addUsage } from './types.js';

/** At most one report for counting alone per this much workflow time (10 s). */
export const PROGRESS_REPORT_INTERVAL_MS = 10_000;

/** What a visit reports of its progress: the counters the run cannot know until the visit ends. */
export type VisitCounters = Pick<
  Progress,
  'inferences' | 'visitTurns' | 'usage' | 'cost' | 'regions' | 'window' | 'recentCalls' | 'gates' | 'workers'
> & {
  /** Workflow time (ms since the epoch) of the visit when it reported. */
  at: number;
};

/** The counters of a visit's progress it reports to its run, at workflow time `at`. */
export function countersOf(progress: Progress, at: number): VisitCounters {
  const { inferences, visitTurns, usage, cost, regions, window, recentCalls, gates, workers } = progress;
  return {
    at,
    inferences,
    visitTurns,
    usage,
    cost,
    regions,
    window,
    recentCalls,
    gates,
    ...(workers ? { workers } : {}),
  };
}

/** Where a report stands among its visit's reports: its time, then the order it was sent in. */
export interface ReportOrder {
  at: number;
  seq: number;
}

/**
 * Whether a report arrived after one its visit sent later (signals between
 * workflows may arrive out of order): what it says of the visit's waits was
 * already replaced, so it must not bring back asks the visit has moved past.
 * Reports of visits recorded before reports were numbered carry no order and
 * are never stale. The number restarts when a visit continues as new, whose
 * reports are later in time.
 */
export function reportIsStale(last: ReportOrder | undefined, next: ReportOrder | undefined): boolean {
  if (!last || !next) return false;
  return next.at < last.at || (next.at === last.at && next.seq < last.seq);
}

/** The last report a visit sent: when, and at which run-wide inference. */
export interface ReportMark {
  /** Workflow time of the last report; null before the first. */
  at: number | null;
  inferences: number;
}

/** A visit that has not reported yet: it starts at the run's count. */
export function freshMark(inferences: number): ReportMark {
  return { at: null, inferences };
}

/**
 * Whether a visit sends a report for counting alone now: only when an
 * inference was made since the last report, and the first such time at
 * once, then at most once per `intervalMs`. Times are when inferences
 * ended, as their results in history say (`InferOutput.endedAt`), so a
 * replay takes the same decisions whatever its workflow tasks' times; an
 * inference that says none (`at` null) reports only as the first.
 */
export function progressReportDue(
  last: ReportMark,
  now: { at: number | null; inferences: number },
  intervalMs = PROGRESS_REPORT_INTERVAL_MS,
): boolean {
  if (now.inferences <= last.inferences) return false;
  if (last.at === null) return true;
  return now.at !== null && now.at - last.at >= intervalMs;
}

/**
 * The run's progress with its live visit's last report merged in: the
 * visit's turn, regions and calls, and the usage and cost of the finished
 * visits plus the live one. `finishedVisits` keeps the run's own part, so a
 * client that also asks the visit can add the visit's fresher numbers to it
 * without counting them twice.
 */
export function withLiveVisit(run: Progress, counters: VisitCounters | undefined): Progress {
  // A report behind what the run took from a finished visit is one that visit sent before it ended.
  if (!counters || counters.inferences < run.inferences) return run;
  const { at, usage, cost, workers, ...rest } = counters;
  return {
    ...run,
    ...rest,
    ...(workers ? { workers } : {}),
    usage: addUsage(run.usage, usage),
    cost: addCost(run.cost, cost),
    finishedVisits: { usage: run.usage, cost: run.cost },
    reportedAt: at,
  };
}

/**
 * The run's progress with its live visit's own answer: the visit knows the
 * turn, its regions and its calls; the status and what waits for a person
 * (or for a tool worker) are the run's view, which its validators check updates against, so a
 * question listed here can be answered at once. Usage and cost are what the
 * run counted for its finished visits plus the visit's own. A client merges
 * a visit's answer this way (`runProgress`), and so does a fan-out worker
 * whose visit runs inside it (docs/reference/sub-agents.md#one-workflow-per-worker).
 */
export function withVisitProgress(run: Progress, visit: Progress): Progress {
  const { status, waiting, toolWorker, asks, paused, heldMessages } = run;
  return {
    ...visit,
    status,
    ...(waiting ? { waiting } : { waiting: undefined }),
    ...(toolWorker ? { toolWorker } : { toolWorker: undefined }),
    asks,
    paused,
    heldMessages: Math.max(visit.heldMessages ?? 0, heldMessages ?? 0),
    stageWorkflowId: run.stageWorkflowId,
    usage: addUsage(run.finishedVisits?.usage ?? run.usage, visit.usage),
    cost: addCost(run.finishedVisits?.cost ?? run.cost, visit.cost),
    ...rejectedOf(run, visit),
  };
}

function rejectedOf(run: Progress, visit: Progress): Pick<Progress, 'rejected'> {
  const rejected = mergeRejected(run.rejected, visit.rejected);
  return rejected ? { rejected } : {};
}

/** How many dropped messages (docs/reference/operators.md#rejected-messages) the details name one by one. */
export const RECENT_REJECTED = 3;

/** A run's and its live visit's dropped messages together, as `lev show` reports them. */
export function mergeRejected(
  a: RejectedMessages | undefined,
  b: RejectedMessages | undefined,
): RejectedMessages | undefined {
  if (!a || !b) return a ?? b;
  return { count: a.count + b.count, recent: [...a.recent, ...b.recent].slice(-RECENT_REJECTED) };
}

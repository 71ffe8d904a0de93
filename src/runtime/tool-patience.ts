/**
 * How a run waits for its workdir's tool worker
 * (docs/reference/long-runs.md#tool_worker_patience). A tool call or seed on
 * the run's tool queue may wait only so long to be taken (its schedule-to-start
 * timeout); when it was not taken, the run asks the server whether a tool
 * worker polls the queue. One that polls is busy, and the call is scheduled
 * again. None: the run shows `waiting` with reason `tool-worker-missing` and
 * schedules the call again, until `[run] tool_worker_patience` has passed
 * since the call first waited; then it fails `tool-worker-missing`. Pure:
 * the workflows call these, and the durations are decided here.
 */
import { formatDuration } from '../blueprint/duration.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { toolWorkerCommand } from './tool-queue.js';
import type { RunOptions, ToolWorkerAbsence } from './types.js';

/** The default of `[run] tool_worker_patience`: an hour. */
export const DEFAULT_TOOL_WORKER_PATIENCE_SECS = 3_600;
/** How long a call waits to be taken before the run first asks whether a tool worker polls. */
export const TOOL_PROBE_MS = 30_000;
/** The longest wait between two asks while the tool worker is away, so a patience of days records few events. */
export const TOOL_PROBE_MAX_MS = 600_000;
/** A poller the server saw this recently is a live tool worker: an idle one polls again within about a minute. */
export const POLLER_FRESH_MS = 120_000;
/** The shortest wait of one attempt: the server's timers are not finer. */
const MIN_START_TIMEOUT_MS = 1_000;

export function toolWorkerPatienceMs(bp: Pick<Blueprint, 'run'>): number {
  return (bp.run?.toolWorkerPatienceSecs ?? DEFAULT_TOOL_WORKER_PATIENCE_SECS) * 1000;
}

/**
 * How long the next attempt of a call may wait to be taken: the probe
 * interval at first, then half of what the call has waited so far (at most
 * ten minutes), so a busy or absent tool worker costs the run's history a
 * few events an hour; never past the end of the patience once the tool
 * worker is missing (`absentMs`: how long it has been).
 */
export function toolStartTimeoutMs(
  w: { patienceMs: number; waitedMs: number; absentMs?: number },
  options: Pick<RunOptions, 'toolProbeMs'> = {},
): number {
  const probe = options.toolProbeMs !== undefined && options.toolProbeMs > 0 ? options.toolProbeMs : TOOL_PROBE_MS;
  const step = w.waitedMs <= 0 ? probe : Math.min(Math.max(w.waitedMs / 2, probe), Math.max(probe, TOOL_PROBE_MAX_MS));
  const left = w.patienceMs - Math.max(0, w.absentMs ?? 0);
  return Math.ceil(Math.max(MIN_START_TIMEOUT_MS, Math.min(step, left)));
}

/** What the run does after a call was not taken in time. */
export type ToolWorkerCheck =
  /** A tool worker polls: it is busy; schedule the call again, waiting for nobody. */
  | { kind: 'present' }
  /** None polls: show the wait and schedule the call again. */
  | { kind: 'missing'; absence: ToolWorkerAbsence }
  /** None polled for the whole patience: the run fails `tool-worker-missing`. */
  | { kind: 'gone'; absence: ToolWorkerAbsence };

export function checkToolWorker(
  w: {
    taskQueue: string;
    workdir: string;
    /** When the first call of this wait was scheduled (workflow time, ms). */
    since: number;
    now: number;
    patienceMs: number;
    /** How long ago the server last saw each poller of the queue; a dead worker's stays listed a while. */
    pollerAgesMs: readonly number[];
  },
  options: Pick<RunOptions, 'pollerFreshMs'> = {},
): ToolWorkerCheck {
  const freshMs =
    options.pollerFreshMs !== undefined && options.pollerFreshMs > 0 ? options.pollerFreshMs : POLLER_FRESH_MS;
  if (w.pollerAgesMs.some((age) => age < freshMs)) return { kind: 'present' };
  const absence = { taskQueue: w.taskQueue, workdir: w.workdir, since: w.since, failsAt: w.since + w.patienceMs };
  return w.now >= absence.failsAt ? { kind: 'gone', absence } : { kind: 'missing', absence };
}

/** Why the run stopped: the failure's message, with the command that serves the workdir. */
export function toolWorkerMissingText(absence: ToolWorkerAbsence): string {
  const waited = formatDuration(Math.round((absence.failsAt - absence.since) / 1000));
  return `No tool worker took the run's tool calls on task queue ${absence.taskQueue} for ${waited} ([run] tool_worker_patience), so the run stopped; start \`${toolWorkerCommand(absence.workdir, absence.taskQueue)}\` where the workdir ${absence.workdir} is, then start the run again.`;
}

/**
 * The attempts of a call made before it was scheduled again: an attempt
 * that started heartbeats its number (`{ attempt }`), and the timeout of
 * the attempt that was never taken carries the last heartbeat's details,
 * so the tool knows a retry for one (docs/tools.md#at-least-once-behaviour).
 */
export function attemptsBefore(lastHeartbeat: unknown, before: number): number {
  const attempt = (lastHeartbeat as { attempt?: unknown } | null | undefined)?.attempt;
  return typeof attempt === 'number' && Number.isInteger(attempt) && attempt > before ? attempt : before;
}

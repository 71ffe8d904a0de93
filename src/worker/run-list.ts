/**
 * The pure half of `lev ps` and `lev show`: which visibility query a filter
 * becomes, and the one status a run is shown with. Temporal's execution
 * status is the truth for runs that ran no code at their end (terminated,
 * timed out); `LeviathStatus` says the rest (docs/reference/operators.md#run-status).
 */
import { LevError } from '../errors.js';
import { LEVIATH_STATUSES } from '../runtime/types.js';

/** What a run is shown as: its `LeviathStatus`, or Temporal's word for an end the workflow never saw. */
export const RUN_STATUSES = [...LEVIATH_STATUSES, 'terminated', 'timed-out'] as const;
export type ShownStatus = (typeof RUN_STATUSES)[number];

const OPEN: readonly string[] = ['running', 'waiting', 'paused'];
const CLOSED: readonly string[] = ['completed', 'failed', 'cancelled', 'stuck'];

/**
 * The status shown for a run. A closed workflow whose `LeviathStatus` still
 * names an open state ended without its code running (a terminate, a
 * timeout, or a version that did not write its end), so Temporal's status
 * wins there.
 */
export function shownStatus(execution: string, leviath: string | undefined): ShownStatus {
  switch (execution) {
    case 'RUNNING':
      return leviath && OPEN.includes(leviath) ? (leviath as ShownStatus) : 'running';
    case 'TERMINATED':
      return 'terminated';
    case 'TIMED_OUT':
      return 'timed-out';
    case 'CANCELLED':
      return 'cancelled';
    case 'FAILED':
      return leviath && CLOSED.includes(leviath) && leviath !== 'completed' ? (leviath as ShownStatus) : 'failed';
    default:
      return leviath && CLOSED.includes(leviath) ? (leviath as ShownStatus) : 'completed';
  }
}

function quoted(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Narrows the listing on the server; `shownStatus` decides exactly, since an old run's attributes may lag its end. */
const STATUS_QUERY: Record<ShownStatus, string> = {
  running: "ExecutionStatus = 'Running'",
  waiting: "LeviathStatus = 'waiting' AND ExecutionStatus = 'Running'",
  paused: "LeviathStatus = 'paused' AND ExecutionStatus = 'Running'",
  completed: "ExecutionStatus = 'Completed'",
  failed: "(ExecutionStatus = 'Failed' OR LeviathStatus = 'failed')",
  cancelled: "(ExecutionStatus = 'Canceled' OR LeviathStatus = 'cancelled')",
  stuck: "LeviathStatus = 'stuck'",
  terminated: "ExecutionStatus = 'Terminated'",
  'timed-out': "ExecutionStatus = 'TimedOut'",
};

export interface RunFilter {
  status?: string;
  blueprint?: string;
}

/** The status a filter names, or a coded error listing the ones there are. */
export function filterStatus(status: string | undefined): ShownStatus | undefined {
  if (status === undefined) return undefined;
  if ((RUN_STATUSES as readonly string[]).includes(status)) return status as ShownStatus;
  throw new LevError(
    'unknown-status',
    `--status takes one of ${RUN_STATUSES.join(', ')}; "${status}" is none of them.`,
  );
}

/** The visibility query listing the runs a filter asks for (stage visits are other workflow types). */
export function listQuery(filter: RunFilter): string {
  const parts = ["WorkflowType = 'agentRunWorkflow'"];
  const status = filterStatus(filter.status);
  if (filter.blueprint !== undefined) parts.push(`LeviathBlueprint = ${quoted(filter.blueprint)}`);
  if (status) parts.push(STATUS_QUERY[status]);
  return parts.join(' AND ');
}

/** `45s`, `12m`, `3h`, `2d`: how long ago a run started, as `lev ps` shows it. */
export function age(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** The stage visits of a run, in order, from their workflow ids (`<run>.<n>.<stage>`). */
export function stagePath(runId: string, visitIds: Iterable<string>): string[] {
  const visits: { n: number; stage: string }[] = [];
  for (const id of visitIds) {
    if (!id.startsWith(`${runId}.`)) continue;
    const rest = id.slice(runId.length + 1);
    const dot = rest.indexOf('.');
    const n = Number(rest.slice(0, dot));
    // A visit handed over across the run's continue-as-new has two executions under one id.
    if (dot <= 0 || !Number.isInteger(n) || visits.some((v) => v.n === n)) continue;
    visits.push({ n, stage: rest.slice(dot + 1) });
  }
  return visits.sort((a, b) => a.n - b.n).map((v) => v.stage);
}

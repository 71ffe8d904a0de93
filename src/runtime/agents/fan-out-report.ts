/**
 * How the workers of a fan-out and a spawned agent read to the model
 * (docs/reference/sub-agents.md): the merged report's counts, headings and
 * share of the room, and the results of the agent tools. Pure.
 */

import { resultCap, routeTarget } from '../../context/routing.js';
import { findRegion, type RunState } from '../../context/state.js';
import type { Content } from '../../shapes/content.js';
import type { ToolRouting } from '../../shapes/frozen-blueprint.js';
import type { ReportCounts, WorkerEnd } from './queue.js';

/** One item's line of the merged report, before the activity cuts it to its share. */
export interface ReportItem {
  id: string;
  status: WorkerEnd['status'] | 'not-started';
  /** The answer (completed) or the reason (otherwise). */
  text: Content;
}

export function reportCounts(items: readonly Pick<ReportItem, 'status'>[]): ReportCounts {
  const succeeded = items.filter((i) => i.status === 'completed').length;
  const failed = items.filter((i) => i.status === 'failed').length;
  return { succeeded, failed, cancelled: items.length - succeeded - failed };
}

/** The report's first line: how many succeeded and failed. */
export function reportHeader(counts: ReportCounts): string {
  const { succeeded, failed, cancelled } = counts;
  return `[fan_out results: ${succeeded} succeeded, ${failed} failed${cancelled > 0 ? `, ${cancelled} cancelled` : ''}]`;
}

/** How an item's status reads after its heading: nothing for an answer. */
const STATUS_LABEL: Record<ReportItem['status'], string> = {
  completed: '',
  failed: ' FAILED',
  cancelled: ' CANCELLED',
  'not-started': ' NOT STARTED',
};

/** One item's section: `## worker <id>`, with its status when it has no answer. */
export function sectionHeading(item: Pick<ReportItem, 'id' | 'status'>): string {
  return `## worker ${item.id}${STATUS_LABEL[item.status]}`;
}

/**
 * The one section of a run of items that share an end without answers (a
 * shard that failed, was cancelled or never started):
 * `## workers <first> to <last> <STATUS> (<n> items)` and why.
 */
export function rangeSection(
  items: readonly Pick<ReportItem, 'id'>[],
  status: Exclude<ReportItem['status'], 'completed'>,
  why: string,
): string {
  const first = items[0]?.id ?? '';
  const last = items.at(-1)?.id ?? first;
  return `## workers ${first} to ${last}${STATUS_LABEL[status]} (${items.length} items)\n${why}`;
}

/** Why an item has no worker: a fail-fast fan-out stopped before it (docs/reference/sub-agents.md#fan_out). */
export const EARLIER_FAILURE = 'an earlier worker failed';

/** An item's line of the report: its worker's answer, or why it has none. */
export function reportItem(id: string, end: WorkerEnd | undefined): ReportItem {
  if (!end) return { id, status: 'not-started', text: `not started: ${EARLIER_FAILURE}` };
  return { id, status: end.status, text: end.status === 'completed' ? end.output : end.error };
}

/** The report of an empty `fan_out`: nothing was handed out. */
export const EMPTY_FAN_OUT_REPORT = '[fan_out results: no items, so no worker ran]';

/**
 * Each item's share of the region the report lands in: the region's room
 * (or the tool's cap, when smaller) divided equally, so every worker's
 * section appears (docs/reference/sub-agents.md#the-merged-report).
 */
export function itemShare(room: number, items: number): number {
  if (items <= 0) return room;
  return Math.max(16, Math.floor(room / items));
}

/** The region budget assumed when the routing target has none. */
const DEFAULT_ROOM = 4000;
/** The least room an answer or a report is ever given, in tokens. */
const MIN_ROOM = 64;

/**
 * The tokens a result of `tool` may take: the room of the region it is
 * routed to, or the tool's cap when smaller, less `margin` (the merged
 * fan-out report keeps 64 tokens for its header); never under 64.
 */
export function resultRoom(state: RunState, routing: ToolRouting | undefined, tool: string, margin = 0): number {
  const region = findRegion(state, routeTarget(state, routing, tool));
  const cap = resultCap(routing, tool);
  const budget = region?.budget ?? DEFAULT_ROOM;
  return Math.max(MIN_ROOM, Math.min(budget, cap ?? budget) - margin);
}

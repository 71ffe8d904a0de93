/**
 * A run workflow that continues as new (docs/reference/long-runs.md#the-run-continues-as-new):
 * when it decides to, what it carries to its next run, and how that run
 * picks the walk up again. Each stage visit reports to its run and people's
 * updates land on it, so the run's history grows with wall-clock time; past
 * `runHistoryEvents` events it goes on as a fresh run of the same workflow
 * id. A live visit is asked to hand over at its next turn: it ends with its
 * continuation, which the next run starts again under the same visit id.
 * Plain data and pure functions, bundled into workflow code.
 */
import type { HandedOver, RunOptions } from './types.js';

/** Events in one run of the run workflow before it continues as new, unless `RunOptions.runHistoryEvents` says otherwise. */
export const RUN_HISTORY_EVENTS = 4_000;

/** The events a run's history may reach before it continues as new. */
export function runHistoryLimit(options: Pick<RunOptions, 'runHistoryEvents'>): number {
  const set = options.runHistoryEvents;
  return set !== undefined && Number.isInteger(set) && set > 0 ? set : RUN_HISTORY_EVENTS;
}

/** Whether the run should continue as new now: its history passed the limit, or Temporal suggests it. */
export function runContinueDue(
  history: { length: number; suggested: boolean },
  options: Pick<RunOptions, 'runHistoryEvents'>,
): boolean {
  return history.suggested || history.length >= runHistoryLimit(options);
}

/**
 * How a run continues as new: not at all (a run recorded before it could), on the Worker
 * Deployment version it runs on (`stay`), or on the deployment's current version (`upgrade`,
 * docs/reference/operating.md#safe-deploys).
 */
export type Continuing = false | 'stay' | 'upgrade';

/**
 * Whether a run moves to the deployment's current version when it continues as new: a run
 * started by a person or a schedule does; a sub-agent or a fan-out worker stays on its parent's
 * version, which the parent's input and result shapes are those of.
 */
export function upgradesOnContinue(start: object): boolean {
  return !('shared' in start) && (start as { child?: unknown }).child === undefined;
}

/** The continue-as-new options of a run that continues so. */
export function continueAsNewVersioning(continuing: Continuing): { initialVersioningBehavior?: 'AUTO_UPGRADE' } {
  return continuing === 'upgrade' ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : {};
}

/** What a visit knows before its next inference about going on as new. */
export interface VisitClock {
  /** Its run sent `hand-over`. */
  handOverAsked: boolean;
  /** Turns in this run of the visit, against `RunOptions.turnsPerRun`. */
  runTurns: number;
  turnsPerRun: number;
  /** Temporal's `continueAsNewSuggested`. */
  suggested: boolean;
  /** A sub-agent it started is still open: they are its children, so it cannot go on as new. */
  agentsOpen: boolean;
}

/** Whether the visit goes on as new before its next inference: handed over to its run, or alone. */
export function visitGoesOn(clock: VisitClock): boolean {
  return !clock.agentsOpen && (clock.handOverAsked || clock.runTurns >= clock.turnsPerRun || clock.suggested);
}

/**
 * Whether a visit going on as new hands over to its run (which then continues as new itself)
 * rather than continuing as new alone. `askedNow` is the request read again once the continuation
 * is ready (`HAND_OVER_READ_LAST`): a request that came while the visit compacted its log still
 * hands over, where a visit recorded before went on alone and its run waited for it to end.
 */
export function handsOver(askedBefore: boolean, askedNow: boolean, readLast: boolean | undefined): boolean {
  return readLast ? askedNow : askedBefore;
}

/** Whether a visit's result is a hand-over rather than an outcome. */
export function isHandedOver(result: unknown): result is HandedOver {
  return typeof result === 'object' && result !== null && 'handedOver' in result;
}

/**
 * What a run shows people of itself (docs/reference/operators.md#statuses): what it waits
 * for and its `LeviathStatus` search attribute while it goes on. Pure.
 */
import type { PendingAsk } from './updates.js';

/** The values of the `LeviathStatus` search attribute (docs/reference/operators.md#statuses). */
export const LEVIATH_STATUSES = ['running', 'waiting', 'paused', 'completed', 'failed', 'cancelled', 'stuck'] as const;

export type LeviathStatus = (typeof LEVIATH_STATUSES)[number];

/** What `Progress.waiting` says the run waits for. */
export type WaitingKind = 'message' | 'approval' | 'answer' | 'resume';

export function waitingKind(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
}): WaitingKind | undefined {
  if (w.asks.some((a) => a.kind === 'approval')) return 'approval';
  if (w.asks.some((a) => a.kind === 'answer')) return 'answer';
  if (w.waitingReply) return 'message';
  if (w.paused) return 'resume';
  return undefined;
}

/** The run's `LeviathStatus` while it goes on (the end states are set where the run ends). */
export function runStatus(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  stuck: boolean;
}): LeviathStatus {
  const waiting = waitingKind(w);
  if (waiting === 'approval' || waiting === 'answer' || waiting === 'message') return 'waiting';
  if (w.paused) return 'paused';
  return w.stuck ? 'stuck' : 'running';
}

/**
 * What a run shows people of itself (docs/reference/operators.md#statuses): what it waits
 * for and its `LeviathStatus` search attribute while it goes on. Pure.
 */
import type { LeviathStatus, PendingAsk, ToolWorkerAbsence, WaitingKind } from '../types.js';

export function waitingKind(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  /** The workdir's tool worker is away (docs/reference/long-runs.md#tool_worker_patience). */
  toolWorker?: ToolWorkerAbsence;
}): WaitingKind | undefined {
  if (w.asks.some((a) => a.kind === 'approval')) return 'approval';
  if (w.asks.some((a) => a.point !== undefined)) return 'checkpoint';
  if (w.asks.some((a) => a.kind === 'answer')) return 'answer';
  if (w.waitingReply) return 'message';
  if (w.toolWorker) return 'tool-worker-missing';
  if (w.paused) return 'resume';
  return undefined;
}

/** The run's `LeviathStatus` while it goes on (the end states are set where the run ends). */
export function runStatus(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  stuck: boolean;
  toolWorker?: ToolWorkerAbsence;
}): LeviathStatus {
  const waiting = waitingKind(w);
  if (waiting === 'approval' || waiting === 'answer' || waiting === 'checkpoint' || waiting === 'message')
    return 'waiting';
  if (waiting === 'tool-worker-missing') return 'waiting';
  if (w.paused) return 'paused';
  return w.stuck ? 'stuck' : 'running';
}

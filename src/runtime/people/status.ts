/**
 * What a run shows people of itself (docs/reference/operators.md#statuses): what it waits
 * for and its `LeviathStatus` search attribute while it goes on. Pure.
 */
import type { LeviathStatus, PendingAsk, Progress, ProviderWait, ToolWorkerAbsence, WaitingKind } from '../types.js';

/** What a run waits for: a person first, then its tool worker, then `resume`, then a provider that is down. */
export function waitingKind(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  /** The workdir's tool worker is away (docs/reference/long-runs.md#tool_worker_patience). */
  toolWorker?: ToolWorkerAbsence;
  provider?: ProviderWait | undefined;
}): WaitingKind | undefined {
  if (w.asks.some((a) => a.kind === 'approval')) return 'approval';
  if (w.asks.some((a) => a.point !== undefined)) return 'checkpoint';
  if (w.asks.some((a) => a.kind === 'answer')) return 'answer';
  if (w.waitingReply) return 'message';
  if (w.toolWorker) return 'tool-worker-missing';
  if (w.paused) return 'resume';
  if (w.provider) return 'provider-unavailable';
  return undefined;
}

/**
 * The run's `LeviathStatus` while it goes on (the end states are set where the run ends): a
 * wait for a person or for a provider is `waiting`, unless the run is paused.
 */
export function runStatus(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  stuck: boolean;
  toolWorker?: ToolWorkerAbsence;
  provider?: ProviderWait | undefined;
}): LeviathStatus {
  const waiting = waitingKind(w);
  if (waiting === 'approval' || waiting === 'answer' || waiting === 'checkpoint' || waiting === 'message')
    return 'waiting';
  if (waiting === 'tool-worker-missing') return 'waiting';
  if (w.paused) return 'paused';
  if (waiting === 'provider-unavailable') return 'waiting';
  return w.stuck ? 'stuck' : 'running';
}

/** What the people around a visit and its provider add to its progress: its status, what it waits for, the asks and the held messages. */
export function peopleProgress(
  people: Parameters<typeof waitingKind>[0] & { held: readonly unknown[] },
): Pick<Progress, 'status' | 'asks' | 'paused' | 'heldMessages' | 'waiting' | 'toolWorker' | 'provider'> {
  const waiting = waitingKind(people);
  return {
    status: runStatus({ ...people, stuck: false }),
    ...(waiting ? { waiting } : {}),
    ...(people.toolWorker ? { toolWorker: people.toolWorker } : {}),
    ...(people.provider ? { provider: people.provider } : {}),
    asks: [...people.asks],
    paused: people.paused,
    heldMessages: people.held.length,
  };
}

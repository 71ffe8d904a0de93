/**
 * Which run an activity's blob writes belong to. The activity adapters set
 * it around their work; a store that tracks references (Postgres) reads it
 * on `put`, so the three-call interface stays unchanged.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

export function withBlobRun<T>(runId: string | undefined, work: () => Promise<T>): Promise<T> {
  return runId ? scope.run(runId, work) : work();
}

/** The run the current blob write belongs to, if an activity said so. */
export function currentBlobRun(): string | undefined {
  return scope.getStore();
}

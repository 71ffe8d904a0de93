/**
 * A model call that already answered is never paid for twice
 * (docs/reference/long-runs.md#never-billed-twice). An inference stores its
 * answer under a key made of the workflow run and the whole input (the run,
 * the visit's turn, the region set it renders) before it returns. An attempt
 * of the same inference, on any worker, returns the stored answer instead of
 * calling the provider again; an attempt that starts while the first one
 * still waits for the provider in this process waits for that call.
 */
import { createHash } from 'node:crypto';
import type { InferInput, InferOutput } from '../activity-types.js';
import type { RunStore } from './run-store.js';

/** Calls of this process still waiting for their provider, by key. */
const inFlight = new Map<string, Promise<InferOutput>>();

/**
 * The key of one inference of one workflow run: every attempt of it, and every retry of the turn, share it.
 * A local inference (`timeless`) is keyed without its operations' times: a workflow task lost with its
 * worker is run again on another worker, later, and rebuilds the same operations stamped with its own
 * time (docs/reference/blueprint.md#runtime); an activity's input is recorded, so its attempts share it whole.
 */
export function answerKey(workflowRunId: string, input: InferInput, timeless = false): string {
  const keyed = timeless ? { ...input, ops: input.ops.map(({ now: _, ...op }) => op) } : input;
  return createHash('sha256').update(workflowRunId).update('\n').update(JSON.stringify(keyed)).digest('hex');
}

export async function answerOnce(store: RunStore, key: string, call: () => Promise<InferOutput>): Promise<InferOutput> {
  const running = inFlight.get(key);
  if (running) return running;
  const work = (async () => {
    const stored = await store.blobs.named(key);
    if (stored) return JSON.parse(await store.blobs.get(stored)) as InferOutput;
    const answer = await call();
    const ref = await store.blobs.put(JSON.stringify(answer));
    await store.blobs.name(key, ref.hash);
    return answer;
  })();
  inFlight.set(key, work);
  try {
    return await work;
  } finally {
    if (inFlight.get(key) === work) inFlight.delete(key);
  }
}

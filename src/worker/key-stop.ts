/**
 * A worker without the codec key stops polling at the first encrypted
 * payload it is handed (docs/reference/operating.md#without-the-key). Its
 * codec has already failed that task retryably; were it to keep polling, it
 * would take the retries too, and each activity attempt it failed would
 * count against the call's retry limit until the run failed. Stopped, it
 * leaves every retry to the workers that have the key, and `lev worker`
 * says why it ended.
 */
import type { Worker } from '@temporalio/worker';
import { KEY_MISSING_SENTENCE } from '../codec/key-missing.js';
import { LevError } from '../errors.js';

const stopped = new WeakSet<Worker>();

/**
 * The codec's `onMissing` for a worker still being created, and `attach`,
 * which names the worker once it exists.
 */
export function stopWithoutKey(): { onMissing: () => void; attach: (worker: Worker) => void } {
  let worker: Worker | undefined;
  let met = false;
  const stop = () => {
    const w = worker;
    if (!w || stopped.has(w)) return;
    stopped.add(w);
    // At once, before the codec's failure answers the task in hand: the server hands the task's next
    // try to whichever poll is waiting, and this worker's own should be gone by then.
    if (w.getState() === 'RUNNING') w.shutdown();
  };
  return {
    onMissing: () => {
      met = true;
      stop();
    },
    attach: (w) => {
      worker = w;
      if (met) stop();
    },
  };
}

/** `codec-key-missing` when the worker stopped because it met a payload it has no key for. */
export function stoppedWithoutKey(worker: Worker): LevError | undefined {
  return stopped.has(worker)
    ? new LevError(
        'codec-key-missing',
        `${KEY_MISSING_SENTENCE} This worker stopped polling so that one with the key takes its tasks.`,
      )
    : undefined;
}

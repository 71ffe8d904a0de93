import type { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { stoppedWithoutKey, stopWithoutKey } from '../../src/worker/key-stop.js';

/** Just what a stop touches of a worker: its state and its shutdown. */
function fakeWorker(): Worker & { shutdowns: number } {
  const w = {
    state: 'RUNNING',
    shutdowns: 0,
    getState() {
      return w.state;
    },
    shutdown() {
      w.shutdowns++;
      w.state = 'STOPPING';
    },
  };
  return w as unknown as Worker & { shutdowns: number };
}

describe('a worker without the codec key (docs/reference/operating.md#without-the-key)', () => {
  it('stops polling once, at once, at the first payload it cannot read', () => {
    const worker = fakeWorker();
    const stop = stopWithoutKey();
    stop.attach(worker);
    stop.onMissing();
    stop.onMissing();
    expect(worker.shutdowns).toBe(1);
    expect(stoppedWithoutKey(worker)).toMatchObject({ code: 'codec-key-missing' });
  });

  it('stops a worker that met one while it was being created, and keeps one that met none', () => {
    const early = fakeWorker();
    const stop = stopWithoutKey();
    stop.onMissing();
    expect(early.shutdowns).toBe(0);
    stop.attach(early);
    expect(early.shutdowns).toBe(1);

    const keyed = fakeWorker();
    stopWithoutKey().attach(keyed);
    expect(keyed.shutdowns).toBe(0);
    expect(stoppedWithoutKey(keyed)).toBeUndefined();
  });

  it('leaves a worker that is already stopping alone', () => {
    const worker = fakeWorker();
    const stop = stopWithoutKey();
    stop.attach(worker);
    worker.shutdown();
    stop.onMissing();
    expect(worker.shutdowns).toBe(1);
  });
});

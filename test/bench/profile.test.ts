import { describe, expect, it } from 'vitest';
import { type CpuProfile, summarise } from '../../bench/profile.js';

/** root → turns → apply → initAll → init, root → (idle); one sample is 1 ms. */
function profile(samples: number[]): CpuProfile {
  const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 1 });
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 6] },
      { id: 2, callFrame: frame('turns', 'file:///w/dist/workflow-bundle.js'), children: [3] },
      { id: 3, callFrame: frame('apply', 'file:///w/dist/workflow-bundle.js'), children: [4] },
      { id: 4, callFrame: frame('initAll', 'node:internal/promise_hooks'), children: [5] },
      { id: 5, callFrame: frame('init', 'file:///w/node_modules/@temporalio/worker/lib/workflow/vm-shared.js') },
      { id: 6, callFrame: frame('(idle)') },
    ],
    samples,
    timeDeltas: samples.map(() => 1000),
  };
}

describe('the CPU profile summary', () => {
  it('counts busy time without idle, by function and by package', () => {
    const s = summarise(profile([2, 2, 5, 6, 6, 6]));
    expect(s.busyMs).toBe(3);
    expect(s.byFunction[0]).toEqual(['turns dist/workflow-bundle.js:1', 2]);
    expect(s.byModule).toContainEqual(['@temporalio/worker', 1]);
  });

  it('charges promise-hook time to the code that made the promise and its caller', () => {
    const s = summarise(profile([3, 5, 5, 5]));
    expect(s.promiseHookMs).toBe(3);
    expect(s.promiseHookBy).toEqual([['apply dist/workflow-bundle.js:1 < turns dist/workflow-bundle.js:1', 3]]);
  });
});

import { describe, expect, it } from 'vitest';
import { type CodecFacts, codecKeyWaitOf } from '../../src/worker/codec-wait.js';

const SCHEDULED = 1;
const STARTED = 2;
const quiet: CodecFacts = { workflowId: 'run-1', activities: [] };

describe('a run waiting for a worker with the codec key (docs/reference/operating.md#without-the-key)', () => {
  it('is one whose workflow task, failed for want of the key, waits to be tried again', () => {
    const failed: CodecFacts = { ...quiet, workflowTaskAttempt: 2, lastTaskFailure: 'codec-key-missing' };
    expect(codecKeyWaitOf([failed])).toBe('the workflow task of run-1');
    // Failed for another reason: no.
    expect(codecKeyWaitOf([{ ...failed, lastTaskFailure: 'TypeError' }])).toBeUndefined();
    // A first try has no failure behind it, whatever an older one in history says; nor has a completed task.
    expect(codecKeyWaitOf([{ ...failed, workflowTaskAttempt: 1 }])).toBeUndefined();
    const { workflowTaskAttempt: _, ...completed } = failed;
    expect(codecKeyWaitOf([completed])).toBeUndefined();
  });

  it('is one with a call whose last attempt failed for want of the key and that nobody has taken again, in the run or a live visit', () => {
    const visit: CodecFacts = {
      workflowId: 'run-1.work.1',
      activities: [
        { type: 'inference', state: STARTED },
        { type: 'toolCall', state: SCHEDULED, failureType: 'codec-key-missing' },
      ],
    };
    expect(codecKeyWaitOf([quiet, visit])).toBe('toolCall of run-1.work.1');
    const retaken = { ...visit, activities: [{ type: 'toolCall', state: STARTED, failureType: 'codec-key-missing' }] };
    expect(codecKeyWaitOf([quiet, retaken])).toBeUndefined();
    const otherFailure = { ...visit, activities: [{ type: 'toolCall', state: SCHEDULED, failureType: 'tool-failed' }] };
    expect(codecKeyWaitOf([quiet, otherFailure])).toBeUndefined();
  });

  it('is not a run with nothing pending', () => {
    expect(codecKeyWaitOf([])).toBeUndefined();
    expect(codecKeyWaitOf([quiet])).toBeUndefined();
  });
});

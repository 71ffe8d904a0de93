/** Runs whose workflow task keeps failing (docs/reference/operators.md#a-wedged-run), from describe and history fixtures. */
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../src/truncate.js';
import { cancelStep, taskFailingLine, taskFailure, terminatedReason } from '../../src/worker/task-failures.js';

/** The newest events of a run wedged by a malformed `stage-report` before this version checked it. */
const wedged = [
  { workflowExecutionSignaledEventAttributes: { signalName: 'stage-report' } },
  {
    workflowTaskFailedEventAttributes: {
      failure: {
        message: "Cannot read properties of undefined (reading 'paused')\n    at RunOperators.report (…)",
      },
    },
  },
  { workflowTaskStartedEventAttributes: {} },
  { workflowTaskFailedEventAttributes: { failure: { message: 'an older failure' } } },
];

describe('taskFailure', () => {
  it("reads a pending task past its first attempt and the newest failure's first line", () => {
    const f = taskFailure('r1', { pendingWorkflowTask: { attempt: 7 } }, wedged);
    expect(f).toEqual({
      workflowId: 'r1',
      attempt: 7,
      message: "Cannot read properties of undefined (reading 'paused')",
    });
    expect(taskFailingLine(f!, 'r1')).toBe(
      "workflow task failing (attempt 7): Cannot read properties of undefined (reading 'paused')",
    );
    expect(taskFailingLine({ ...f!, workflowId: 'r1.1.main' }, 'r1')).toMatch(
      /^workflow task failing in r1\.1\.main \(attempt 7\)/,
    );
  });

  it('is nothing for a task on its first attempt or none pending, and says when history has no message', () => {
    expect(taskFailure('r1', { pendingWorkflowTask: { attempt: 1 } }, wedged)).toBeUndefined();
    expect(taskFailure('r1', {}, wedged)).toBeUndefined();
    const bare = taskFailure('r1', { pendingWorkflowTask: { attempt: 3 } }, []);
    expect(bare).toEqual({ workflowId: 'r1', attempt: 3, message: '' });
    expect(taskFailingLine(bare!, 'r1')).toBe('workflow task failing (attempt 3): no message recorded');
  });

  it('cuts a long message', () => {
    const long = [{ workflowTaskFailedEventAttributes: { failure: { message: 'é'.repeat(10_000) } } }];
    expect(utf8Bytes(taskFailure('r', { pendingWorkflowTask: { attempt: 2 } }, long)!.message)).toBeLessThanOrEqual(
      300,
    );
  });
});

describe('cancelStep', () => {
  const base = { ended: false, failing: false, elapsedMs: 0, graceMs: 10_000, wait: false };

  it('is done once the run has ended', () => {
    expect(cancelStep({ ...base, ended: true, failing: true, elapsedMs: 99_999 })).toBe('ended');
  });

  it('gives a run whose task fails the grace period, then terminates it, with or without --wait', () => {
    expect(cancelStep({ ...base, failing: true, elapsedMs: 9_999 })).toBe('wait');
    expect(cancelStep({ ...base, failing: true, elapsedMs: 10_000 })).toBe('terminate');
    expect(cancelStep({ ...base, failing: true, elapsedMs: 10_000, wait: true })).toBe('terminate');
  });

  it('leaves a healthy run to end cancelled, and waits for it only with --wait, however long', () => {
    expect(cancelStep({ ...base, elapsedMs: 0 })).toBe('leave');
    expect(cancelStep({ ...base, elapsedMs: 60_000, wait: true })).toBe('wait');
  });

  it('says why it terminated', () => {
    expect(terminatedReason(10, { workflowId: 'r', attempt: 4, message: 'boom' })).toBe(
      'cancelled with lev cancel; its workflow task kept failing for 10 s (attempt 4: boom), so it could not take the cancellation',
    );
  });
});

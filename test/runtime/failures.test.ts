/** A failed child or activity keeps its coded cause instead of Temporal's wrapper text. */
import { ApplicationFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failureCause, failureCode } from '../../src/runtime/failures.js';

describe('failureCause', () => {
  it("reads a failed stage visit's code and message under the child-workflow wrapper", () => {
    const child = new ChildWorkflowFailure(
      'default',
      { workflowId: 'run-1.1.main', runId: 'r' },
      'stageWorkflow',
      RetryState.NON_RETRYABLE_FAILURE,
      ApplicationFailure.nonRetryable('no stage "main" in blueprint demo', 'unknown-stage'),
    );
    expect(child.message).toBe('Child Workflow execution failed');
    expect(failureCause(child, 'stage-failed')).toEqual({
      code: 'unknown-stage',
      message: 'no stage "main" in blueprint demo',
    });
  });

  it('falls back to the given code when the cause names none the registry knows', () => {
    const odd = ApplicationFailure.nonRetryable('boom', 'SomethingInternal');
    expect(failureCause(odd, 'stage-failed')).toEqual({ code: 'stage-failed', message: 'boom' });
    expect(failureCause(new Error('plain'), 'stage-failed')).toEqual({ code: 'stage-failed', message: 'plain' });
  });
});

describe('failureCode', () => {
  it('reads the code from the type, else from the message a provider coded', () => {
    expect(failureCode('stage-failed', 'x')).toBe('stage-failed');
    expect(failureCode('ProviderAuth', '[provider-auth] The key was rejected.')).toBe('provider-auth');
    expect(failureCode('ProviderAuth', 'no code here')).toBeUndefined();
    expect(failureCode(undefined, '[not-a-registered-code] x')).toBeUndefined();
  });
});

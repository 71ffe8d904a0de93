/**
 * What a failed activity or child workflow says about why it failed.
 * Temporal wraps the failure a workflow or activity threw: a child's
 * `ChildWorkflowFailure` says only "Child Workflow execution failed", and
 * the coded `ApplicationFailure` that explains it is its cause. Pure:
 * imported by workflow code.
 */
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure } from '@temporalio/common';
import { isRuntimeCode, type RuntimeCode } from '../error-codes.js';
import { formatCoded } from '../errors.js';
import type { StageOutcome } from './types.js';

export interface FailureCause {
  /** The `ApplicationFailure` type, which carries the runtime error code; `fallback` when there is none. */
  code: RuntimeCode;
  message: string;
}

/**
 * The runtime code of a failure: its type when that is a code, else the
 * `[code]` its message starts with (provider failures are typed by their
 * class, `ProviderAuth`, and coded in the message). Undefined when it has none.
 */
export function failureCode(type: string | undefined | null, message: string): RuntimeCode | undefined {
  if (type && isRuntimeCode(type)) return type;
  const prefix = /^\[([a-z0-9-]+)\] /.exec(message)?.[1];
  return prefix && isRuntimeCode(prefix) ? prefix : undefined;
}

/** The innermost cause under the activity and child-workflow wrappers. */
export function failureCause(err: unknown, fallback: RuntimeCode): FailureCause {
  let cause: unknown = err;
  while ((cause instanceof ChildWorkflowFailure || cause instanceof ActivityFailure) && cause.cause)
    cause = cause.cause;
  if (cause instanceof ApplicationFailure)
    return { code: cause.type && isRuntimeCode(cause.type) ? cause.type : fallback, message: cause.message };
  return { code: fallback, message: cause instanceof Error ? cause.message : String(cause) };
}

/** The first detail of the coded failure under the wrappers: a failed run's partial result, a failed visit's outcome. */
export function failureDetail(err: unknown): unknown {
  let cause: unknown = err;
  while ((cause instanceof ChildWorkflowFailure || cause instanceof ActivityFailure) && cause.cause)
    cause = cause.cause;
  return cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
}

/** How a run says that one of its stages failed, with the stage's own coded cause. */
export function stageFailedText(stage: string, cause: FailureCause): string {
  return `stage "${stage}" failed: ${formatCoded(cause.code, cause.message)}`;
}

/** How a run says that one of its stage workflows was cancelled alone (people cancel the run). */
export function stageCancelledAloneText(stage: string, workflowId: string, runId: string): string {
  return `stage "${stage}" (workflow ${workflowId}) was cancelled on its own; cancel the run ${runId} instead.`;
}

/**
 * How a visit that ended in error fails: with its error's code (else
 * `stage-failed`), never retried, and its outcome as details when the run
 * reads it from there (a stage workflow's failure).
 */
export function visitFailure(message: string, code: string | undefined, outcome?: StageOutcome): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type: code ?? 'stage-failed',
    nonRetryable: true,
    ...(outcome ? { details: [outcome] } : {}),
  });
}

/**
 * The names people and the workflows use to talk (docs/reference/operators.md):
 * the run's updates and `message` signal, and the two internal signals
 * between the run and its live stage visit.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  Answered,
  Decision,
  ForwardedOp,
  MessageReceipt,
  PauseState,
  StageOutcome,
  StageReport,
} from '../src/runtime/index.js';

export const messageUpdate = defineUpdate<MessageReceipt, [string]>('message');
export const approveUpdate = defineUpdate<Decision, [{ call?: string; note?: string }?]>('approve');
export const denyUpdate = defineUpdate<Decision, [{ call?: string; note?: string }?]>('deny');
export const answerUpdate = defineUpdate<Answered, [string | { call?: string; text: string }]>('answer');
export const pauseUpdate = defineUpdate<PauseState, []>('pause');
export const resumeUpdate = defineUpdate<PauseState, []>('resume');

/** A message sent as a signal to the run: the `message` update without an answer. */
export const runMessageSignal = defineSignal<[string]>('message');
/** An update the run accepted, forwarded to its live visit. */
export const operatorSignal = defineSignal<[ForwardedOp]>('operator');
/** A visit's answer to a forwarded update, a change of its waits, or its region set when cancelled. */
export const stageReportSignal = defineSignal<[StageReport<StageOutcome>]>('stage-report');
/** The run is about to continue as new: its live visit ends at its next turn with its continuation (`src/runtime/continuation.ts`). */
export const handOverSignal = defineSignal('hand-over');

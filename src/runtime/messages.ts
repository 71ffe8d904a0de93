/**
 * Every name people and the workflows use to talk (docs/reference/operators.md):
 * the `progress` and `events` queries a run and a stage visit both answer, the run's
 * updates and `message` signal, the two internal signals between the run and
 * its live stage visit, and the visit's own `message` signal of earlier
 * versions. The only home of wire names (`test/folders.test.ts`): the
 * workflows install their handlers on these definitions, and the clients
 * (`src/worker/operators.ts`, the `send_to_agent` activity) send and ask
 * through them. Pure data; deliberately not in `index.ts`, so only what
 * talks to workflows loads `@temporalio/workflow`.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { EventsAsk, EventsPage } from '../shapes/run-events.js';
import type {
  Answered,
  Decision,
  ForwardedRequest,
  MessageReceipt,
  OperatorUpdate,
  PauseState,
} from './people/updates.js';
import type { StageReport } from './people/visit-side.js';
import type { Progress, StageOutcome } from './types.js';

/** What a run or a stage visit shows of itself (`lev ps`, `lev show`, the Web UI). */
export const progressQuery = defineQuery<Progress>('progress');

/** A run's or a stage visit's event stream from an offset (docs/reference/events.md#the-events-query). */
export const eventsQuery = defineQuery<EventsPage, [EventsAsk?]>('events');

export const messageUpdate = defineUpdate<MessageReceipt, [string]>('message');
export const approveUpdate = defineUpdate<Decision, [{ call?: string; note?: string }?]>('approve');
export const denyUpdate = defineUpdate<Decision, [{ call?: string; note?: string }?]>('deny');
/** A string, or the call with one of `text`, `choice` and `yes` (docs/reference/interaction.md#answering). */
export const answerUpdate = defineUpdate<
  Answered,
  [string | { call?: string; text?: string; choice?: number | string; yes?: boolean }]
>('answer');
export const pauseUpdate = defineUpdate<PauseState, []>('pause');
export const resumeUpdate = defineUpdate<PauseState, []>('resume');

/** The run's updates by the name a person sends (`OPERATOR_UPDATES`): the run installs each, a client sends through it. */
export const operatorUpdates = {
  message: messageUpdate,
  approve: approveUpdate,
  deny: denyUpdate,
  answer: answerUpdate,
  pause: pauseUpdate,
  resume: resumeUpdate,
} as const satisfies Record<OperatorUpdate, { type: 'update'; name: string }>;

/** A message sent as a signal to the run: the `message` update without an answer. */
export const runMessageSignal = defineSignal<[string]>('message');
/** An update the run accepted, forwarded to its live visit. */
export const operatorSignal = defineSignal<[ForwardedRequest]>('operator');
/** A visit's answer to a forwarded update, a change of its waits, or its region set when cancelled. */
export const stageReportSignal = defineSignal<[StageReport<StageOutcome>]>('stage-report');
/**
 * A person's reply to an interactive stage, sent to the visit itself (earlier
 * versions); people now send `message` to the run (docs/reference/operators.md#message).
 */
export const stageMessageSignal = defineSignal<[string]>('message');
/** The run is about to continue as new: its live visit ends at its next turn with its continuation (`src/runtime/continuation.ts`). */
export const handOverSignal = defineSignal('hand-over');

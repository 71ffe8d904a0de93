/**
 * A stage visit's side of people in the loop (docs/reference/operators.md): the state
 * a visit holds for people, what it does with each request the run forwards,
 * what the run does with one while no visit runs, and what a visit reports
 * back. Pure: imported by workflow code.
 */
import type { VisitCounters } from '../live-progress.js';
import type { OperatorCarry, PendingAsk, ProviderWait, ToolWorkerAbsence } from '../types.js';
import {
  type AskDecision,
  answerFor,
  isRefusal,
  type OperatorReply,
  type OperatorRequest,
  type OperatorReturn,
  type Refusal,
  refuse,
  resolveAsk,
} from './updates.js';

/** A stage visit's side of the loop: what it holds for people, carried across continue-as-new. */
export interface StageOperatorState {
  /** Messages to write into the conversation before the next inference, oldest first. */
  inbox: string[];
  /** Messages for a later stage that accepts them. */
  held: string[];
  paused: boolean;
  asks: PendingAsk[];
  /** Decisions made and not yet read by the visit, by call id. */
  decisions: Record<string, AskDecision>;
  /** An interactive stage waits for a person's reply. */
  waitingReply: boolean;
  /** A tool call waits for the workdir's tool worker, which is away (docs/reference/long-runs.md#tool_worker_patience). */
  toolWorker?: ToolWorkerAbsence;
}

export function freshStageOperators(carry?: OperatorCarry, acceptsMessages = true): StageOperatorState {
  const queued = [...(carry?.inbox ?? []), ...(carry?.held ?? [])];
  return {
    inbox: acceptsMessages ? queued : [],
    held: acceptsMessages ? [] : queued,
    paused: carry?.paused ?? false,
    asks: [],
    decisions: {},
    waitingReply: false,
  };
}

export function operatorCarry(state: StageOperatorState): OperatorCarry {
  return { inbox: [...state.inbox], held: [...state.held], paused: state.paused };
}

export interface StageRequestContext {
  stage: string;
  acceptsMessages: boolean;
  /** Inferences of the run so far (the one in flight not counted). */
  inferences: number;
  visitTurns: number;
  /** An inference is running now, so a message is read by the one after it. */
  inferring: boolean;
}

/**
 * What a stage visit does with an operation the run forwarded: the new
 * operator state and the answer for the sender. The visit re-checks what
 * the run's validator checked, since the situation may have changed since.
 */
export function applyOperatorRequest(
  state: StageOperatorState,
  op: OperatorRequest,
  ctx: StageRequestContext,
): { state: StageOperatorState; reply: OperatorReply } {
  const refused = (refusal: Refusal) => ({ state, reply: { ok: false as const, refusal } });
  const done = (next: StageOperatorState, value: OperatorReturn) => ({
    state: next,
    reply: { ok: true as const, value },
  });
  switch (op.kind) {
    case 'message': {
      if (state.waitingReply || ctx.acceptsMessages) {
        const ahead = ctx.inferring && !state.waitingReply ? 2 : 1;
        return done(
          { ...state, inbox: [...state.inbox, op.text] },
          { stage: ctx.stage, turn: ctx.inferences + ahead, stageTurn: ctx.visitTurns + ahead, held: false },
        );
      }
      return done(
        { ...state, held: [...state.held, op.text] },
        { stage: null, turn: null, stageTurn: null, held: true },
      );
    }
    case 'approve':
    case 'deny':
    case 'answer': {
      const ask = resolveAsk(state.asks, op.kind === 'answer' ? 'answer' : 'approval', op.call);
      if (isRefusal(ask)) return refused(ask);
      const fitted = op.kind === 'answer' ? answerFor(ask, op) : undefined;
      if (isRefusal(fitted)) return refused(fitted);
      const decision: AskDecision = fitted
        ? { kind: 'answered', text: fitted.text }
        : {
            kind: op.kind === 'approve' ? 'approved' : 'denied',
            ...(op.kind !== 'answer' && op.note !== undefined ? { note: op.note } : {}),
          };
      const next = {
        ...state,
        asks: state.asks.filter((a) => a.call !== ask.call),
        decisions: { ...state.decisions, [ask.call]: decision },
      };
      if (fitted)
        return done(next, {
          call: ask.call,
          question: ask.subject,
          ...(fitted.picked !== undefined ? { answer: fitted.picked } : {}),
        });
      return done(next, {
        call: ask.call,
        tool: ask.tool,
        decision: op.kind === 'approve' ? 'approved' : 'denied',
        ...(op.kind !== 'answer' && op.note !== undefined ? { note: op.note } : {}),
      });
    }
    case 'pause':
      if (state.paused) return refused(refuse('already-paused', 'The run is already paused; send `resume` to go on.'));
      return done({ ...state, paused: true }, { paused: true, stage: ctx.stage });
    case 'resume':
      if (!state.paused) return refused(refuse('not-paused', 'The run is not paused, so there is nothing to resume.'));
      return done({ ...state, paused: false }, { paused: false, stage: ctx.stage });
  }
}

/** What the run does with an operation while no visit runs: messages and pauses wait for the next visit. */
export function applyBetweenVisits(
  carry: Required<OperatorCarry>,
  op: OperatorRequest,
): { carry: Required<OperatorCarry>; reply: OperatorReply } {
  const stage = { stage: null };
  switch (op.kind) {
    case 'message':
      return {
        carry: { ...carry, held: [...carry.held, op.text] },
        reply: { ok: true, value: { ...stage, turn: null, stageTurn: null, held: true } },
      };
    case 'pause':
    case 'resume': {
      const paused = op.kind === 'pause';
      if (carry.paused === paused)
        return {
          carry,
          reply: {
            ok: false,
            refusal: paused
              ? refuse('already-paused', 'The run is already paused; send `resume` to go on.')
              : refuse('not-paused', 'The run is not paused, so there is nothing to resume.'),
          },
        };
      return { carry: { ...carry, paused }, reply: { ok: true, value: { paused, ...stage } } };
    }
    default: {
      const ask = resolveAsk([], op.kind === 'answer' ? 'answer' : 'approval', op.call);
      return { carry, reply: { ok: false, refusal: ask as Refusal } };
    }
  }
}

/** What a visit waits for and holds, as it tells the run. */
export interface StageWaits {
  asks: PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  heldMessages: number;
  toolWorker?: ToolWorkerAbsence;
  /** The provider outage the visit waits out (docs/reference/long-runs.md#provider-outages). */
  provider?: ProviderWait;
}

export function stageWaits(state: StageOperatorState): StageWaits {
  return {
    asks: state.asks,
    waitingReply: state.waitingReply,
    paused: state.paused,
    heldMessages: state.held.length,
    ...(state.toolWorker ? { toolWorker: state.toolWorker } : {}),
  };
}

export const NO_WAITS: StageWaits = Object.freeze({ asks: [], waitingReply: false, paused: false, heldMessages: 0 });

/**
 * What a visit tells its run (the `stage-report` signal): its answer to a
 * forwarded update, a change of what it waits for or of its counters, or the
 * region set it had when it was cancelled. Every answer and change carries
 * the visit's counters, so the run's own progress is live
 * (`src/runtime/live-progress.ts`), and `seq`, the order the visit sent it
 * in, so a report that arrives late is not taken over a newer one.
 */
export type StageReport<Outcome = unknown> =
  | { kind: 'ack'; id: number; reply: OperatorReply; waits: StageWaits; counters?: VisitCounters; seq?: number }
  | { kind: 'waits'; waits: StageWaits; counters?: VisitCounters; seq?: number }
  | { kind: 'cancelled'; outcome: Outcome };

/**
 * What a stage visit does at each point of its turn, decided in one place
 * (`workflows/visit/stage.ts` runs the turn, gathers the facts, calls the
 * activities and acts on the step): the turn goes on to its next step,
 * starts again, finishes, fails, or goes on as new. Each point of a turn
 * is a kind of facts, in the order the turn reaches them, since a visit
 * that ends at one point must not run the commands of the next (histories
 * replay that order). Plain data and a pure function, bundled into workflow code.
 */
import type { StageEnd } from './types.js';
import { inferenceFailedNote, type RuntimeNote, type Stop } from './visit.js';

/** Before the inference: the visit's limits, the run's spend cap, and its continuation clock. */
export interface TurnStart {
  at: 'start';
  /** `stopReason`: the iteration cap or the stuck limits. */
  stop: Stop | null;
  /** `visitOverBudget`: why the next inference would go past the run's spend cap. */
  overBudget: string | undefined;
  /** `visitGoesOn`: the visit goes on as new before its inference. */
  goesOn: boolean;
  /** The run's hand-over request as read now, which the hand-over is decided by in visits recorded before `HAND_OVER_READ_LAST`. */
  handOverAsked: boolean;
}

/** The inference gave no reply: the chain moved on or a wait was cut short (`again`), or it failed. */
export interface NoReply {
  at: 'no-reply';
  stage: string;
  reply: { again: true } | { failed: string; code?: string };
}

/** A checkpoint that ends the run: an abort option, or a point nobody answered. */
export interface CheckpointStopFact {
  kind: 'abort' | 'unanswered';
  detail: string;
}

/** A reply without tool calls, and what came of it (`StageVisit.afterPlainReply`): the stage ends, runs again, or a checkpoint stops it. */
export interface PlainReply {
  at: 'plain-reply';
  after: boolean | CheckpointStopFact;
}

/** The reply's calls are answered; the tool worker may have been given up on meanwhile. */
export interface CallsAnswered {
  at: 'calls-answered';
  /** `ToolWorkerWatch.gone`: why no tool worker took the calls. */
  toolWorkerGone: string | undefined;
}

/** After the repetition watch: whether the stage's mode ends it now. */
export interface TurnDone {
  at: 'turn-done';
  /** `endsWithOutput`: an `output` stage holds a valid submission. */
  endsWithOutput: boolean;
  /** `fanOutEnd`: a fan-out stage's workers ran. */
  fanOut: { end: 'completed' | 'error'; error?: string } | undefined;
}

export type TurnFacts = TurnStart | NoReply | PlainReply | CallsAnswered | TurnDone;

/** How the visit ends, or that it starts its next turn. */
export type TurnEnd =
  | { kind: 'continue' }
  /** Its outcome; `note` is written first, `detail` is the outcome's error. */
  | { kind: 'finish'; end: StageEnd; detail?: string; note?: RuntimeNote }
  /** It ends in error (`StageVisit.endInError`) with the failure and its code; `note` is written first. */
  | { kind: 'fail'; failed: string; code?: string; note?: RuntimeNote }
  /** It goes on as new: `handsOver` decides, once the continuation is ready, whether it hands over to its run. */
  | { kind: 'go-on-as-new'; handOverAsked: boolean };

/** A point of the turn that may let it go on: `next`, to the turn's next step. */
export type TurnStep = TurnEnd | { kind: 'next' };

export function afterTurn(facts: TurnStart | CallsAnswered): TurnStep;
export function afterTurn(facts: NoReply | PlainReply | TurnDone): TurnEnd;
export function afterTurn(facts: TurnFacts): TurnStep {
  switch (facts.at) {
    case 'start':
      if (facts.stop) return { kind: 'finish', end: facts.stop.end, note: facts.stop.note };
      // A run with a spend cap stops before the inference that would go past it.
      if (facts.overBudget !== undefined)
        return {
          kind: 'fail',
          failed: facts.overBudget,
          code: 'budget-exhausted',
          note: { region: 'error_report', text: `[budget-exhausted] ${facts.overBudget}` },
        };
      return facts.goesOn ? { kind: 'go-on-as-new', handOverAsked: facts.handOverAsked } : { kind: 'next' };
    case 'no-reply': {
      const { reply } = facts;
      if ('again' in reply) return { kind: 'continue' };
      return { ...failure(reply.failed, reply.code), note: inferenceFailedNote(facts.stage, reply.failed) };
    }
    case 'plain-reply': {
      // A reply without tool calls ends the stage, unless its mode asks for an answer, a person or a fan-out.
      const { after } = facts;
      if (after === true) return { kind: 'finish', end: 'completed' };
      if (after === false) return { kind: 'continue' };
      // A checkpoint's abort option ends the visit cancelled, and its run with it; an unanswered one, in error.
      return after.kind === 'abort'
        ? { kind: 'finish', end: 'cancelled', detail: after.detail }
        : failure(after.detail, 'checkpoint-unanswered');
    }
    case 'calls-answered': {
      // No tool worker took the calls for the run's patience: the visit ends in error, and so does its run.
      const gone = facts.toolWorkerGone;
      if (gone === undefined) return { kind: 'next' };
      return {
        ...failure(gone, 'tool-worker-missing'),
        note: { region: 'error_report', text: `[tool-worker-missing] ${gone}` },
      };
    }
    case 'turn-done':
      if (facts.endsWithOutput) return { kind: 'finish', end: 'completed' };
      if (!facts.fanOut) return { kind: 'continue' };
      return facts.fanOut.error ? failure(facts.fanOut.error, undefined) : { kind: 'finish', end: 'completed' };
  }
}

function failure(failed: string, code: string | undefined): Extract<TurnEnd, { kind: 'fail' }> {
  return { kind: 'fail', failed, ...(code !== undefined ? { code } : {}) };
}

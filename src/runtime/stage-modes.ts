/**
 * What a stage does when the model answers without tool calls, by mode:
 * `autonomous` ends the stage; a stage that owes a final answer (`output`
 * mode, `require_output`) is reminded to call `submit_output`, a few times at
 * most, then ends with `output-forced`; `interactive` waits for a person's
 * reply; an `interactive_points` stage asks its checkpoints
 * (`people/interaction-points.ts`) before it may end; a `fan_out` stage is
 * asked again for its `fan_out` call, up to its `max_attempts`. An `output` stage ends, and with it the run, right after a
 * valid submission; a `fan_out` stage right after its fan-out. Before any of
 * these, a stage with the original's empty-response nudge that has called no
 * tool yet is nudged to use its tools, `max` times at most. Pure:
 * imported by workflow code.
 */
import type { StageDef } from '../shapes/frozen-blueprint.js';
import type { FanOutFacts, OutputFacts } from './types.js';

/** Reminders before a stage that owes an answer gives up and ends without one. */
export const OUTPUT_REMINDERS = 3;

export type PlainReplyStep =
  | { kind: 'end' }
  | { kind: 'nudge'; text: string }
  | { kind: 'remind'; text: string }
  | { kind: 'forced'; detail: string }
  | { kind: 'wait' }
  | { kind: 'checkpoint' }
  | { kind: 'ask-fan-out'; text: string }
  | { kind: 'fan-out-empty'; detail: string };

/**
 * What the stage does after an assistant turn without tool calls. `nudging`:
 * the visit runs the nudge (`EMPTY_RESPONSE_NUDGE`); an interactive stage's
 * text is for the person it waits for, so it is never nudged.
 */
export function afterPlainReply(def: StageDef, facts: OutputFacts & FanOutFacts, nudging = false): PlainReplyStep {
  const nudge = nudging && def.mode !== 'interactive' ? def.nudge : undefined;
  if (nudge && !facts.calledTools && (facts.nudges ?? 0) < nudge.max)
    return { kind: 'nudge', text: `[System] ${nudge.text}` };
  if (def.fanOut && !facts.fanOutDone) {
    const missed = missedFanOut(def, facts);
    if (missed.gaveUp) return { kind: 'fan-out-empty', detail: missed.gaveUp };
    return {
      kind: 'ask-fan-out',
      text: `[fan-out-required] Stage "${def.name}" hands its work to workers: call fan_out once, on its own, with every work item as {"id", "context"} (an empty items list when nothing is left to do).`,
    };
  }
  if (def.requireOutput && !facts.output) {
    const sent = facts.outputReminders ?? 0;
    if (sent >= OUTPUT_REMINDERS)
      return {
        kind: 'forced',
        detail: `stage "${def.name}" ended without the final output it requires, after ${sent} reminders`,
      };
    return {
      kind: 'remind',
      text: `[output-required] Stage "${def.name}" must hand back its final answer: call submit_output with the answer as \`content\`. The stage cannot end until it does.`,
    };
  }
  if (def.mode === 'interactive') return { kind: 'wait' };
  if (def.mode === 'interactive_points' && (def.interactionPoints?.length ?? 0) > 0) return { kind: 'checkpoint' };
  return { kind: 'end' };
}

/** The facts once `step` is sent: a reminder or a nudge is counted. */
export function countSent<F extends OutputFacts>(facts: F, step: PlainReplyStep): F {
  if (step.kind === 'remind') return { ...facts, outputReminders: (facts.outputReminders ?? 0) + 1 };
  if (step.kind === 'nudge') return { ...facts, nudges: (facts.nudges ?? 0) + 1 };
  return facts;
}

/**
 * A fan-out stage missed its fan-out once more (a reply without tool calls,
 * or a refused `fan_out` call). Past `max_attempts` misses it gives up: the
 * detail of the `fan-out-empty` warning says so.
 */
export function missedFanOut(def: StageDef, facts: FanOutFacts): { facts: FanOutFacts; gaveUp?: string } {
  const misses = (facts.fanOutAttempts ?? 0) + 1;
  const max = def.fanOut?.maxAttempts ?? 0;
  if (misses <= max) return { facts: { ...facts, fanOutAttempts: misses } };
  return {
    facts: { ...facts, fanOutAttempts: misses, fanOutDone: true },
    gaveUp: `stage "${def.name}" ended without a fan_out call after being asked ${max} time${max === 1 ? '' : 's'}; the run goes on with no workers`,
  };
}

/**
 * A fan-out stage ends once its fan-out ran or it gave up asking: completed,
 * or with an error when a worker failed under `on_worker_failure = "fail"`.
 * Undefined while it still owes its call, and for every other mode.
 */
export function fanOutEnd(
  def: StageDef,
  facts: FanOutFacts,
): { end: 'completed' | 'error'; error?: string } | undefined {
  if (!def.fanOut || !facts.fanOutDone) return undefined;
  return facts.fanOutFailed ? { end: 'error', error: facts.fanOutFailed } : { end: 'completed' };
}

/** An `output` stage ends as soon as it holds a valid submission; the run ends with it. */
export function endsWithOutput(def: StageDef, facts: OutputFacts): boolean {
  return def.mode === 'output' && facts.output !== undefined;
}

/** A person's reply to an interactive stage: blank (or `/done`) ends the stage, anything else continues it. */
export function interactiveReply(text: string): { kind: 'end' } | { kind: 'continue'; text: string } {
  const trimmed = text.trim();
  return trimmed === '' || trimmed === '/done' ? { kind: 'end' } : { kind: 'continue', text: trimmed };
}

/**
 * What a stage does when the model answers without tool calls, by mode:
 * `autonomous` ends the stage; a stage that owes a final answer (`output`
 * mode, `require_output`) is reminded to call `submit_output`, a few times at
 * most, then ends with `output-forced`; `interactive` waits for a person's
 * reply. An `output` stage ends, and with it the run, right after a valid
 * submission. Pure: imported by workflow code.
 */
import type { StageDef } from '../blueprint/types.js';
import type { Content } from '../context/types.js';

/** Reminders before a stage that owes an answer gives up and ends without one. */
export const OUTPUT_REMINDERS = 3;

/** A valid `submit_output` call: the answer (a blob reference when large) and its label. */
export interface SubmittedOutput {
  format: string;
  content: Content;
  stage: string;
}

/** The part of a visit's facts these decisions read and update. */
export interface OutputFacts {
  output?: SubmittedOutput;
  outputReminders?: number;
}

export type PlainReplyStep =
  | { kind: 'end' }
  | { kind: 'remind'; text: string }
  | { kind: 'forced'; detail: string }
  | { kind: 'wait' };

/** What the stage does after an assistant turn without tool calls. */
export function afterPlainReply(def: StageDef, facts: OutputFacts): PlainReplyStep {
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
  return { kind: 'end' };
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
